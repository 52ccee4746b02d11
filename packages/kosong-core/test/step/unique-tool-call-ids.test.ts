/**
 * `step` (through `generate`) makes tool-call ids unique on receipt: a
 * repeated id within the message, an id already used in the history, and an
 * empty id each get a fresh one, before any callback or tool sees the call,
 * and each result carries its own call's id.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assistantMessage, defineTool, SimpleToolset, step, toolCall, toolCallPart, toolOk, userMessage, type Message, type StreamedMessagePart } from "@kosong/core";
import { partsProvider } from "../helpers/stream-provider.js";

const echo = defineTool({
  name: "Echo",
  description: "Returns its text.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => toolOk(text),
});

describe("unique tool-call ids", () => {
  it("renames repeated, reused and empty ids; parts, calls and results agree", async () => {
    const history: Message[] = [
      userMessage("go"),
      { ...assistantMessage(""), content: [], tool_calls: [toolCall("a", "Echo", { text: "earlier" })] },
      { role: "tool", tool_call_id: "a", content: [{ type: "text", text: "earlier" }] },
    ];
    const parts: StreamedMessagePart[] = [
      // Arguments streamed in fragments after the call: they belong to the renamed call.
      toolCall("a", "Echo", null),
      toolCallPart('{"text":'),
      toolCallPart('"one"}'),
      toolCall("b", "Echo", { text: "two" }),
      toolCall("b", "Echo", { text: "three" }),
      toolCall("", "Echo", { text: "four" }),
      toolCall("b_2", "Echo", { text: "five" }),
    ];
    const seen: string[] = [];
    const result = await step(partsProvider(parts), "", new SimpleToolset([echo]), history, {
      onMessagePart: (part) => void (part.type === "function" && seen.push(part.id)),
    });
    const ids = result.message.tool_calls!.map((c) => c.id);
    expect(ids).toEqual(["a_2", "b", "b_2", "call_2", "b_2_2"]);
    expect(seen).toEqual(ids);
    expect(result.toolCalls.map((c) => c.id)).toEqual(ids);
    const results = await result.toolResults();
    expect(results.map((r) => r.tool_call_id)).toEqual(ids);
    expect(results.map((r) => (r.return_value as { output: unknown }).output)).toEqual(["one", "two", "three", "four", "five"]);
    // The history is not touched.
    expect(history[1]!.tool_calls![0]!.id).toBe("a");
  });

  it("leaves unique ids as they are (the provider's own part objects)", async () => {
    const first = toolCall("x", "Echo", { text: "1" });
    const received: StreamedMessagePart[] = [];
    const result = await step(partsProvider([first, toolCall("y", "Echo", { text: "2" })]), "", new SimpleToolset([echo]), [userMessage("go")], {
      onMessagePart: (part) => void received.push(part),
    });
    expect(received[0]).toBe(first);
    expect(result.message.tool_calls!.map((c) => c.id)).toEqual(["x", "y"]);
  });

  it("two conversations stepped in turns: each call is checked against its own history, step after step", async () => {
    /** One step of `history` whose model calls `ids`; the history grown by the message and its results. */
    const grow = async (history: readonly Message[], ids: string[]): Promise<{ history: Message[]; ids: string[] }> => {
      const result = await step(partsProvider(ids.map((id) => toolCall(id, "Echo", { text: id }))), "", new SimpleToolset([echo]), history);
      const results = await result.toolResults();
      const answers: Message[] = results.map((r) => ({ role: "tool", tool_call_id: r.tool_call_id, content: [{ type: "text", text: "ok" }] }));
      return { history: [...history, result.message, ...answers], ids: result.message.tool_calls!.map((c) => c.id) };
    };
    let a: Message[] = [userMessage("a")];
    let b: Message[] = [userMessage("b")];
    const seen: string[][] = [];
    const turns = [["a", ["x"]], ["b", ["p"]], ["b", ["q"]], ["b", ["r"]], ["a", ["y"]], ["b", ["x"]], ["a", ["p", "y"]], ["b", ["p", "x"]], ["a", ["x"]]] as const;
    for (const [which, ids] of turns) {
      const grown = await grow(which === "a" ? a : b, [...ids]);
      if (which === "a") a = grown.history;
      else b = grown.history;
      seen.push(grown.ids);
    }
    // An id is renamed only when its own conversation used it before, never for the other's.
    expect(seen).toEqual([["x"], ["p"], ["q"], ["r"], ["y"], ["x"], ["p", "y_2"], ["p_2", "x_2"], ["x_2"]]);
  });
});
