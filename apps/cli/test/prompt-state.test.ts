/**
 * The prompt's reducer alone: each key gives a new state and effects, and
 * the state it was given is left as it was.
 */
import { describe, expect, it } from "vitest";
import { EditBuffer } from "../src/modes/interactive/edit-buffer.js";
import type { Key } from "../src/modes/interactive/key-reader.js";
import { applyCompletion, endsPrompt, initialPrompt, type PromptEffect, type PromptState, promptReducer } from "../src/modes/interactive/prompt-state.js";
import { promptView } from "../src/modes/interactive/prompt-view.js";
import { typeAheadReducer } from "../src/modes/interactive/type-ahead-state.js";
import { QueuedLines } from "../src/modes/interactive/queued-lines.js";

const text = (t: string): Key => ({ kind: "text", text: t });
const key = (name: Extract<Key, { kind: "key" }>["name"]): Key => ({ kind: "key", name });

/** Runs `keys` from `state`: the last state and every effect. */
function run(state: PromptState, ...keys: Key[]): { state: PromptState; effects: PromptEffect[] } {
  const effects: PromptEffect[] = [];
  for (const k of keys) {
    const step = promptReducer(state, k);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

describe("promptReducer", () => {
  it("edits a copy: the state given stays as it was", () => {
    const before = initialPrompt(new EditBuffer("abc"), []);
    const after = run(before, key("backspace"), text("X"), key("home"), key("ctrl-k")).state;
    expect(before.buffer.text).toBe("abc");
    expect(before.buffer.cursor).toBe(3);
    expect(after.buffer.text).toBe("");
  });

  it("ends with the line entered (pastes put back), Ctrl-C, or Ctrl-D on an empty line", () => {
    const pasted = Array.from({ length: 6 }, (_, i) => `p${i}`).join("\n");
    const line = run(initialPrompt(new EditBuffer(), []), text("a "), { kind: "paste", text: pasted }, key("enter"));
    expect(line.state.buffer.text).toBe("a [pasted 6 lines]");
    expect(line.effects).toEqual([{ kind: "submit", text: `a ${pasted}` }]);
    expect(run(initialPrompt(new EditBuffer("x"), []), key("ctrl-c")).effects).toEqual([{ kind: "interrupt", hadText: true }]);
    expect(run(initialPrompt(new EditBuffer("x"), []), key("ctrl-d")).effects).toEqual([]);
    expect(run(initialPrompt(new EditBuffer(), []), key("ctrl-d")).effects).toEqual([{ kind: "eof" }]);
    expect(run(initialPrompt(new EditBuffer("a\\"), []), key("enter")).state.buffer.text).toBe("a\n");
    expect([{ kind: "submit", text: "" }, { kind: "eof" }, { kind: "interrupt", hadText: false }, { kind: "expand" }].map((e) => endsPrompt(e as PromptEffect))).toEqual([true, true, true, false]);
  });

  it("browses the history with Up and Down, moving within a text of several lines first", () => {
    const start = initialPrompt(new EditBuffer("one\ntwo"), ["newest", "older"]);
    const up1 = run(start, key("up"));
    expect([up1.state.buffer.text, up1.state.browsing]).toEqual(["one\ntwo", -1]);
    const up3 = run(up1.state, key("up"), key("up"), key("up"));
    expect([up3.state.buffer.text, up3.state.browsing, up3.state.draft]).toEqual(["older", 1, "one\ntwo"]);
    const back = run(up3.state, key("down"), key("down"));
    expect([back.state.buffer.text, back.state.browsing]).toEqual(["one\ntwo", -1]);
  });

  it("searches with Ctrl-R: the view shows the query, Backspace searches again from the newest", () => {
    const start = initialPrompt(new EditBuffer("draft"), ["cat b", "cat a", "ls"]);
    const found = run(start, key("ctrl-r"), text("cat"), key("ctrl-r"));
    expect(found.state.buffer.text).toBe("cat a");
    expect(promptView(found.state, "› ", 40).lines).toEqual(["(history search: cat)› cat a"]);
    const none = run(found.state, text("z"));
    expect([none.state.buffer.text, none.state.search?.query]).toEqual(["cat a", "catz"]);
    const again = run(none.state, key("backspace"));
    expect(again.state.buffer.text).toBe("cat b");
    const kept = run(again.state, key("enter"));
    expect(kept.effects).toEqual([{ kind: "submit", text: "cat b" }]);
    const restored = run(again.state, key("ctrl-c"));
    expect([restored.state.buffer.text, restored.state.search, restored.effects]).toEqual(["draft", null, []]);
  });

  it("asks for a completion with Tab and applies it only to the text it was asked for", () => {
    const asked = run(initialPrompt(new EditBuffer("see @sr"), []), key("tab"));
    expect(asked.effects).toEqual([{ kind: "complete", before: "see @sr" }]);
    expect(applyCompletion(asked.state, asked.state, { from: 4, candidates: ["@src/"] })?.state.buffer.text).toBe("see @src/");
    expect(applyCompletion(asked.state, asked.state, { from: 4, candidates: ["@srv.ts"] })?.state.buffer.text).toBe("see @srv.ts ");
    expect(applyCompletion(asked.state, asked.state, { from: 4, candidates: ["@src/", "@srcs/"] })?.state.buffer.text).toBe("see @src");
    expect(applyCompletion(asked.state, asked.state, { from: 4, candidates: ["@sra", "@srb"] })?.effects).toEqual([{ kind: "show", text: "@sra  @srb" }]);
    const typedMeanwhile = run(asked.state, text("c")).state;
    expect(applyCompletion(typedMeanwhile, asked.state, { from: 4, candidates: ["@src/"] })).toBeNull();
    expect(applyCompletion(asked.state, asked.state, null)).toBeNull();
  });
});

describe("typeAheadReducer and the queued lines", () => {
  it("hands a line on with Enter, Esc and Ctrl-C as effects, and keeps what is not entered", () => {
    let buffer = new EditBuffer();
    const effects: unknown[] = [];
    for (const k of [text("one"), key("enter"), key("enter"), text("two\\"), key("enter"), text("lines"), key("escape"), key("ctrl-c")]) {
      const step = typeAheadReducer(buffer, k);
      buffer = step.state;
      effects.push(...step.effects);
    }
    expect(effects).toEqual([{ kind: "line", text: "one" }, { kind: "escape" }, { kind: "interrupt" }]);
    expect(buffer.text).toBe("two\nlines");
  });

  it("delivers queued lines in order once tools run, Esc takes the last back, and the rest is drained", () => {
    const steered: string[] = [];
    let accept = true;
    const queue = new QueuedLines((t) => accept && steered.push(t) > 0);
    queue.push("a");
    queue.push("b");
    queue.push("c");
    queue.deliver();
    expect(steered).toEqual([]);
    expect(queue.takeBack()).toBe("c");
    queue.observe({ type: "ToolCall", payload: { type: "function", id: "t", function: { name: "Shell", arguments: "{}" } } } as never);
    expect(steered).toEqual(["a", "b"]);
    queue.observe({ type: "StepBegin", payload: { n: 2 } });
    queue.push("d");
    queue.deliver();
    accept = false;
    queue.observe({ type: "ToolCall", payload: { type: "function", id: "u", function: { name: "Shell", arguments: "{}" } } } as never);
    expect(steered).toEqual(["a", "b"]);
    expect(queue.drain()).toEqual(["d"]);
    expect(queue.takeBack()).toBeUndefined();
  });
});
