/**
 * D-Mail on, as a service runs it with the default compaction: the model is
 * sent only the checkpoint messages it can use (each step's, not the one of
 * the turn's checkpoint before the user's message, which a D-Mail could only
 * use to drop that message), and SimpleCompaction, which keeps the last two
 * user or assistant messages, keeps the model's last answer (a checkpoint
 * message before the new user message used to take its place).
 */
import { extractText, type Message } from "@kosong/core";
import { SendDMail } from "@kosong/soul";
import { COMPACTION_SYSTEM_PROMPT } from "@kosong/soul/compaction";
import { checkpointMessageId } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { call, collect, ofType, script, testSoul } from "./helpers.js";

const usage = (input: number) => `usage: {"input_other": ${input}, "output": 1}`;
const markers = (history: readonly Message[]) => history.flatMap((m) => (checkpointMessageId(m) === null ? [] : [checkpointMessageId(m)!]));

describe("checkpoint messages with D-Mail on", () => {
  it("a two-step turn sends the model two checkpoint messages, one per step, and a D-Mail to one of them works", async () => {
    const { soul, provider, context } = await testSoul({
      tools: [SendDMail],
      scripts: [
        script(call("d1", "SendDMail", { checkpoint_id: 1, message: "Say it shorter." })),
        "text: short",
      ],
    });
    const { events, result } = await collect(soul.run("explain"));
    expect(result.stopReason).toBe("no_tool_calls");
    // Checkpoint 0 is the turn's (hosts revert to it); 1 is the first step's, after the user's message.
    expect(markers(provider.calls[0]!.history)).toEqual([1]);
    expect(ofType(events, "Reverted").map((e) => e.payload.checkpoint_id)).toEqual([1]);
    // The past self still has the user's message, then the D-Mail.
    const second = provider.calls[1]!.history;
    expect(second.map((m) => extractText(m))).toContain("explain");
    expect(markers(second)).toEqual([1, 2]);
    expect(soul.history.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1, 2]);
  });

  it("a turn of two steps adds two checkpoint messages to the context, not three", async () => {
    const { soul, context } = await testSoul({ tools: [SendDMail], scripts: [call("c1", "Missing"), "text: done"] });
    await collect(soul.run("go"));
    expect(markers(context.history)).toEqual([1, 2]);
    expect(context.checkpoints.map((c) => c.id)).toEqual([0, 1, 2]);
  });

  it("the default compaction keeps the model's last answer verbatim", async () => {
    const answer = "The capital of Australia is Canberra.";
    const { soul, provider, context } = await testSoul({
      tools: [SendDMail],
      config: { maxContextSize: 10_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5 },
      scripts: [
        `text: noted\n${usage(3000)}`,
        `text: ${answer}\n${usage(6000)}`,
        "text: SUMMARY OF THE EARLY TALK",
        (history) => `text: saw the answer ${history.some((m) => m.role === "assistant" && extractText(m) === answer)}`,
      ],
    });
    await collect(soul.run("remember the number 7"));
    await collect(soul.run("what is the capital of Australia?"));
    const { events } = await collect(soul.run("and of New Zealand?"));
    expect(ofType(events, "CompactionBegin").map((e) => e.payload.reason)).toEqual(["auto"]);
    expect(provider.calls[2]!.systemPrompt).toBe(COMPACTION_SYSTEM_PROMPT);
    // The last answer and the new question are the two kept messages; the model reads both.
    const kept = soul.history.map((m) => `${m.role}:${extractText(m)}`);
    expect(kept).toContain(`assistant:${answer}`);
    expect(kept).toContain("user:and of New Zealand?");
    expect(extractText(context.history.at(-1)!)).toBe("saw the answer true");
  });

  it("soul.checkpoints count messages as soul.history and rewrite() do: one count for the host", async () => {
    const { soul, provider, context } = await testSoul({ tools: [SendDMail], scripts: ["text: one", "text: two"] });
    await collect(soul.run("a", { label: "first" }));
    await collect(soul.run("b", { label: "second" }));
    expect(soul.history.map((m) => extractText(m))).toEqual(["a", "one", "b", "two"]);
    const second = soul.checkpoints.find((c) => c.label === "second")!;
    // The turn's checkpoint sits right before its user message, in soul.history's count.
    expect(extractText(soul.history[second.messageCount]!)).toBe("b");
    expect(soul.checkpoints.map((c) => c.messageCount)).toEqual([0, 1, 2, 3]);
    // A rewrite of the message at that index reverts to that checkpoint.
    provider.push("text: three");
    await collect(soul.rewrite(second.messageCount, "c"));
    expect(soul.history.map((m) => extractText(m))).toEqual(["a", "one", "c", "three"]);
    expect(context.checkpoints.length).toBe(soul.checkpoints.length);
  });

  // Needs the compaction strategies never to count checkpoint markers as the messages they keep (issue 28, item 3).
  it("after a D-Mail, the default compaction keeps the D-Mail and the last answer verbatim", async () => {
    const advice = "Use the metric units.";
    const { soul } = await testSoul({
      tools: [SendDMail],
      scripts: [
        "text: noted",
        script(call("d1", "SendDMail", { checkpoint_id: 3, message: advice })),
        "text: 12 km",
        "text: SUMMARY",
      ],
    });
    await collect(soul.run("hi"));
    await collect(soul.run("how far is it?"));
    // The history ends with the D-Mail, the step's marker and the answer.
    await collect(soul.compact());
    const kept = soul.history.map((m) => extractText(m));
    expect(kept.some((text) => text.includes(advice))).toBe(true);
    expect(kept).toContain("12 km");
  });
});
