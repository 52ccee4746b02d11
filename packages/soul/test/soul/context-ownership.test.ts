/**
 * A Context belongs to one Soul at a time: a second Soul's first operation
 * on it throws ContextInUseError (and writes nothing), until the owner
 * releases it.
 */
import { readFile } from "node:fs/promises";
import { SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { readContextFile } from "@kosong/context/records";
import { ContextInUseError, Soul, SoulBusyError, type Context } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { collect, noWait, testSoul } from "./helpers.js";

function secondSoul(context: Context, scripts: string[]) {
  const agent = { name: "second", systemPrompt: "You are the second agent.", toolset: new SimpleToolset([]) };
  return new Soul({ agent, provider: new ScriptedChatProvider(scripts), context, config: { retry: noWait } });
}

function expectInUse(action: () => unknown, location: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(ContextInUseError.isInstance(thrown), String(thrown)).toBe(true);
  expect((thrown as ContextInUseError).location).toBe(location);
  expect((thrown as Error).message).toMatch(/belongs to another Soul \(agent "test"\).*release\(\)/);
}

describe("one Soul per Context", () => {
  it("a second Soul's run, rewrite and compact throw ContextInUseError, also while the first one's turn runs, and write nothing", async () => {
    const { soul, context, file } = await testSoul({ scripts: ["text: first answer", "text: second answer"], onDisk: true, streaming: { chunkSize: 2, delayMs: 5 } });
    const other = secondSoul(context, ["text: intruder"]);
    const turn = soul.run("first question");
    expectInUse(() => other.run("meanwhile"), context.location);
    await collect(turn);
    const before = await readFile(file!);
    expectInUse(() => other.run("after"), context.location);
    expectInUse(() => other.rewrite(0, "edited"), context.location);
    expectInUse(() => other.compact(), context.location);
    expect((await readFile(file!)).equals(before)).toBe(true);
    // The owner goes on as before.
    const { result } = await collect(soul.run("second question"));
    expect(result.stopReason).toBe("no_tool_calls");
    const state = await readContextFile(file!);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    await context.close();
  });

  it("after release() another Soul takes the context over, and the first one is then refused", async () => {
    const { soul, context } = await testSoul({ scripts: ["text: one"] });
    await collect(soul.run("hello"));
    const other = secondSoul(context, ["text: two"]);
    soul.release();
    const { result } = await collect(other.run("continue with another model"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(context.history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    let thrown: unknown;
    try {
      soul.run("me again");
    } catch (error) {
      thrown = error;
    }
    expect(ContextInUseError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toContain('agent "second"');
    other.release();
    await collect(soul.run("me again"));
  });

  it("release() during an operation is refused", async () => {
    const { soul } = await testSoul({ scripts: ["text: slow answer"], streaming: { chunkSize: 2, delayMs: 5 } });
    const turn = soul.run("hello");
    expect(() => soul.release()).toThrow(SoulBusyError);
    await collect(turn);
    soul.release();
  });
});
