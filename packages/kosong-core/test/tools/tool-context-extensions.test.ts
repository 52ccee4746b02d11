/**
 * The ToolContext extension point: a package built on core augments
 * `ToolContextExtensions` by declaration merging, passes the values through
 * `step(..., { toolContext })`, and a `defineTool` tool reads them typed.
 * (The typecheck of this package covers the typed part: `session.record`
 * below only compiles because the augmentation reaches `ToolContext`.)
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  SimpleToolset,
  step,
  toolError,
  toolOk,
  userMessage,
  type CallableTool,
  type ToolContext,
  type ToolReturnValue,
} from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";

/** What an agent runtime would hand its tools: here, a session that records what tools did. */
interface TestSession {
  readonly id: string;
  record(entry: string): void;
}

declare module "@kosong/core" {
  interface ToolContextExtensions {
    testSession: TestSession;
  }
}

function newSession(id: string): TestSession & { entries: string[] } {
  const entries: string[] = [];
  return { id, entries, record: (entry) => entries.push(entry) };
}

const note = defineTool({
  name: "note",
  description: "Writes a note into the session.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }, { testSession, toolCallId }) => {
    expectTypeOf(testSession).toEqualTypeOf<TestSession | undefined>();
    if (testSession === undefined) return toolError({ message: "no session", brief: "no session" });
    testSession.record(`${toolCallId}:${text}`);
    return toolOk(`noted in ${testSession.id}`);
  },
});

const noteCalls = [
  'tool_call: {"id": "c1", "name": "note", "arguments": "{\\"text\\": \\"first\\"}"}',
  'tool_call: {"id": "c2", "name": "note", "arguments": "{\\"text\\": \\"second\\"}"}',
].join("\n");

describe("ToolContextExtensions", () => {
  it("step passes toolContext to every tool call, typed in defineTool", async () => {
    const session = newSession("s-1");
    const provider = new ScriptedChatProvider([noteCalls]);
    const result = await step(provider, "", new SimpleToolset([note]), [userMessage("note twice")], { toolContext: { testSession: session } });
    const results = await result.toolResults();
    expect(results.map((r) => r.return_value)).toEqual([toolOk("noted in s-1"), toolOk("noted in s-1")]);
    expect(session.entries.sort()).toEqual(["c1:first", "c2:second"]);
  });

  it("without toolContext the members are absent, and the tool can tell", async () => {
    const provider = new ScriptedChatProvider([noteCalls]);
    const result = await step(provider, "", new SimpleToolset([note]), [userMessage("note")]);
    const [first] = await result.toolResults();
    expect(first!.return_value.is_error).toBe(true);
    expect(first!.return_value.message).toBe("no session");
  });

  it("the call's own id and signal win over the extensions, and a plain CallableTool sees them too", async () => {
    const seen: ToolContext[] = [];
    const plain: CallableTool = {
      name: "plain",
      definition: { name: "plain", description: "d", parameters: { type: "object", properties: {} } },
      call: (_args, context): Promise<ToolReturnValue> => {
        seen.push(context);
        return Promise.resolve(toolOk("ok"));
      },
    };
    const session = newSession("s-2");
    const sneaky = { testSession: session, toolCallId: "forged" } as { testSession: TestSession };
    const provider = new ScriptedChatProvider(['tool_call: {"id": "c9", "name": "plain", "arguments": "{}"}']);
    const result = await step(provider, "", new SimpleToolset([plain]), [userMessage("go")], { toolContext: sneaky });
    await result.toolResults();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.toolCallId).toBe("c9");
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(seen[0]!.testSession).toBe(session);
  });

  it("SimpleToolset.handle takes the same members as `context`", async () => {
    const session = newSession("s-3");
    const toolset = new SimpleToolset([note]);
    const result = await toolset.handle(
      { type: "function", id: "h1", function: { name: "note", arguments: '{"text": "direct"}' } },
      { context: { testSession: session } },
    );
    expect(result.return_value).toEqual(toolOk("noted in s-3"));
    expect(session.entries).toEqual(["h1:direct"]);
  });
});
