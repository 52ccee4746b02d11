/**
 * The model's D-Mail: SendDMail goes back to a checkpoint and the turn goes
 * on there with the message; the reverted part stays a rotation. Also
 * DenwaRenji's own rules.
 */
import { defineTool, extractText, type Message } from "@kosong/core";
import { SendDMail } from "@kosong/soul";
import { DenwaRenji, DenwaRenjiError, dmailMessage } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, ofType, outline, script, testSoul } from "./helpers.js";

const dmail = (checkpoint_id: number, message: string, id = "d1") => call(id, "SendDMail", { checkpoint_id, message });

/** A tool whose call asks for approval (the tests reject it, with the given feedback). */
function refusing(feedback: string) {
  return defineTool({
    name: "Refused",
    description: "Asks and is refused.",
    parameters: z.object({}),
    async execute(_params, { approval, toolCallId }) {
      const answer = await approval!.request("act", toolCallId);
      return answer.approved ? "ran" : answer.rejection;
    },
  });
}

describe("the model's D-Mail", () => {
  it("reverts to the checkpoint and goes on from there with the message", async () => {
    const { soul, context, provider } = await testSoul({
      onDisk: true,
      tools: [SendDMail],
      scripts: [
        "text: hello",
        script("text: that went badly", dmail(3, "Approach A fails: use approach B.")),
        // The last message is the step's CHECKPOINT; the D-Mail comes right before it.
        (history: readonly Message[]) => `text: read ${JSON.stringify(extractText(history.at(-2)!).includes("use approach B"))}`,
      ],
    });
    await collect(soul.run("hi"));
    // The turn's checkpoint (0, before the user's message) has no visible message: only the step's is sent.
    expect(outline(context)).toEqual(["user:hi", "user:<system>CHECKPOINT 1</system>", "assistant:hello"]);

    const { events, result } = await collect(soul.run("do the thing"));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: 3, reason: "dmail" }]);
    // The host sees a delivered D-Mail as a successful call, not a failed one.
    const sent = ofType(events, "ToolResult").find((e) => e.payload.tool_call_id === "d1")!.payload.return_value;
    expect(sent).toMatchObject({ is_error: false, display: [{ type: "brief", text: "D-Mail sent to checkpoint 3" }] });
    expect(sent.message).toMatch(/^D-Mail sent to checkpoint 3: it is delivered when this step ends/);
    expect(outline(context)).toEqual([
      "user:hi",
      "user:<system>CHECKPOINT 1</system>",
      "assistant:hello",
      "user:do the thing",
      "user:<system>CHECKPOINT 3</system>",
      `user:${extractText(dmailMessage({ checkpoint_id: 3, message: "Approach A fails: use approach B." }))}`,
      "user:<system>CHECKPOINT 4</system>",
      "assistant:read true",
    ]);
    // The model's past self saw "do the thing" (the checkpoint it named comes after it), never the attempt.
    expect(provider.calls[2]!.history.some((m) => extractText(m) === "do the thing")).toBe(true);
    expect(provider.calls[2]!.history.some((m) => extractText(m) === "that went badly")).toBe(false);
    const rotations = await context.rotations();
    expect(rotations).toHaveLength(1);
  });

  it("answers a D-Mail to an unknown checkpoint with an error the model reads", async () => {
    const { soul, provider, context } = await testSoul({ tools: [SendDMail], scripts: [dmail(99, "x"), "text: ok"] });
    const { result, events } = await collect(soul.run("go"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "Reverted")).toEqual([]);
    const answer = provider.calls[1]!.history.find((m) => m.role === "tool")!;
    expect(extractText(answer)).toMatch(/Checkpoint 99 does not exist/);
    expect(await context.rotations()).toEqual([]);
  });

  it("sends one D-Mail at a time", async () => {
    const { soul, context } = await testSoul({ tools: [SendDMail], scripts: [script(dmail(0, "first", "d1"), dmail(0, "second", "d2")), "text: ok"] });
    const { events } = await collect(soul.run("go"));
    expect(ofType(events, "Reverted")).toHaveLength(1);
    expect(outline(context)[1]).toContain("first");
    const second = ofType(events, "ToolResult").find((e) => e.payload.tool_call_id === "d2")!;
    expect(second.payload.return_value.message).toMatch(/one D-Mail/);
  });

  it("is cancelled when another call of the same step is rejected", async () => {
    for (const [feedback, stop] of [["", "tool_rejected"], ["not now", "no_tool_calls"]] as const) {
      const { soul, context } = await testSoul({ tools: [SendDMail, refusing(feedback)], scripts: [script(dmail(0, "back"), call("r1", "Refused")), "text: fine"] });
      soul.approval.subscribe((e) => e.type === "ApprovalRequest" && queueMicrotask(() => soul.approval.respond(e.payload.id, "reject", feedback)));
      const { events, result } = await collect(soul.run("go"));
      expect(result.stopReason).toBe(stop);
      expect(ofType(events, "Reverted")).toEqual([]);
      expect(outline(context).some((line) => line.includes("D-Mail from your future self"))).toBe(false);
      expect(soul.session.denwaRenji.pending).toBeNull();
    }
  });

  it("is dropped when the turn is aborted before the step ends", async () => {
    const wait = defineTool({
      name: "Wait",
      description: "Waits to be cancelled.",
      parameters: z.object({}),
      execute: (_params, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled")))),
    });
    const { soul, context } = await testSoul({ tools: [SendDMail, wait], scripts: [script(dmail(0, "back"), call("w1", "Wait")), "text: next turn"] });
    const controller = new AbortController();
    const turn = soul.run("go", { signal: controller.signal });
    for await (const event of turn) if (event.type === "ToolResult" && event.payload.tool_call_id === "d1") setTimeout(() => controller.abort(), 10);
    expect((await turn.result).stopReason).toBe("aborted");
    expect(soul.session.denwaRenji.pending).toBeNull();
    const { events } = await collect(soul.run("again"));
    expect(ofType(events, "Reverted")).toEqual([]);
    expect(outline(context).at(-1)).toBe("assistant:next turn");
  });

  it("shows checkpoints to the model only when SendDMail is in the toolset", async () => {
    const { soul, context } = await testSoul({ scripts: ["text: hi"] });
    await collect(soul.run("go"));
    expect(outline(context)).toEqual(["user:go", "assistant:hi"]);
  });
});

describe("DenwaRenji", () => {
  it("holds one D-Mail to an existing checkpoint until it is fetched", () => {
    const renji = new DenwaRenji();
    expect(() => renji.sendDMail({ message: "x", checkpoint_id: 0 })).toThrowError(/no checkpoint yet/);
    renji.setNCheckpoints(3);
    expect(() => renji.sendDMail({ message: "x", checkpoint_id: 3 })).toThrowError(/existing checkpoints: 0 to 2/);
    expect(() => renji.sendDMail({ message: "x", checkpoint_id: -1 })).toThrowError(DenwaRenjiError);
    renji.sendDMail({ message: "x", checkpoint_id: 2 });
    expect(() => renji.sendDMail({ message: "y", checkpoint_id: 1 })).toThrowError(/one D-Mail/);
    expect(renji.fetchPendingDMail()).toEqual({ message: "x", checkpoint_id: 2 });
    expect(renji.fetchPendingDMail()).toBeNull();
  });

  it("SendDMail says so when run outside a soul", async () => {
    const result = await SendDMail.call({ message: "x", checkpoint_id: 0 }, { toolCallId: "c", signal: new AbortController().signal });
    expect(result).toMatchObject({ is_error: true, message: expect.stringMatching(/inside a soul/) });
    expect(SendDMail.definition.parameters).toMatchObject({ properties: { checkpoint_id: { type: "integer", minimum: 0 } } });
  });
});
