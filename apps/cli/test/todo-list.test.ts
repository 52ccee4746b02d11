/** The todo list as the conversation holds it, and SetTodoList's result for wire clients. */
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { SetTodoList } from "../src/todo/set-todo-list.js";
import { todoCarryText, TodoListReader, todoListOf } from "../src/todo/todo-list.js";

const set = (todos: object[], args = JSON.stringify({ todos })): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id: "t", function: { name: "SetTodoList", arguments: args } }] });

describe("todoListOf", () => {
  it("is the last valid SetTodoList call, or the list a compaction carried; invalid calls and look-alikes in tool output do not count", () => {
    const first = [{ title: "a", status: "pending" }];
    const carried: Message = { role: "user", content: [{ type: "text", text: "summary" }, { type: "text", text: todoCarryText([{ title: "b", status: "done" }]) }] };
    const forged: Message = { role: "tool", tool_call_id: "x", content: [{ type: "text", text: todoCarryText([{ title: "forged", status: "done" }]) }] };
    expect(todoListOf([])).toBeNull();
    expect(todoListOf([set(first)])).toEqual(first);
    expect(todoListOf([set(first), set([], "{not json"), set([{ title: "", status: "weird" }])])).toEqual(first);
    expect(todoListOf([set(first), carried, forged])).toEqual([{ title: "b", status: "done" }]);
  });

  it("TodoListReader reads only the messages appended since its last read, and a replaced history (a revert, a compaction) whole again", () => {
    const chat = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
    const listA = [{ title: "a", status: "pending" }];
    const listB = [{ title: "b", status: "in_progress" }];
    // Counts the messages read out of a history.
    let reads = 0;
    const counted = (history: Message[]): readonly Message[] =>
      new Proxy(history, { get: (target, key, receiver) => (typeof key === "string" && /^\d+$/.test(key) && reads++, Reflect.get(target, key, receiver)) });
    const reader = new TodoListReader();
    const long = [set(listA), ...Array.from({ length: 1_000 }, (_, i) => chat(`message ${i}`))];
    expect(reader.read(counted(long))).toEqual(listA);
    // A turn appends three messages without a list: those are read (and the one before them, to know the history
    // was appended to), not the 1,001 before, back to the list.
    reads = 0;
    const grown = [...long, chat("next"), chat("after"), chat("again")];
    expect(reader.read(counted(grown))).toEqual(listA);
    expect(reads).toBeLessThanOrEqual(5);
    reads = 0;
    const changed = [...grown, set(listB), chat("more")];
    expect(reader.read(counted(changed))).toEqual(listB);
    expect(reads).toBeLessThanOrEqual(4);
    // A revert to before the second list: the history is read again, and the first list is back.
    expect(reader.read(counted([...long, chat("other")]))).toEqual(listA);
    // A compaction (new messages, as long as before): read again; a history without any list has none.
    expect(reader.read(counted(Array.from({ length: 1_002 }, (_, i) => chat(`compacted ${i}`))))).toBeNull();
    expect(reader.read([])).toBeNull();
    expect(reader.read([chat("x"), set(listB)])).toEqual(listB);
  });

  it("SetTodoList returns kimi-cli's todo display block", async () => {
    const result = await SetTodoList.call({ todos: [{ title: "a", status: "in_progress" }] }, { signal: new AbortController().signal, toolCallId: "t" } as never);
    expect(result.display).toContainEqual({ type: "todo", items: [{ title: "a", status: "in_progress" }] });
    expect(result.output).toBe("Todo list updated: 0 of 1 done.");
  });
});
