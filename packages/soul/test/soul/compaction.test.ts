/**
 * The compaction hook: on the trigger, on a context overflow (compact once,
 * call once more) and on demand; the result replaces the context through
 * clear(), so restoreRotation undoes it.
 */
import { extractText, type Message } from "@kosong/core";
import { SendDMail, SoulBusyError, SoulError, type Compaction } from "@kosong/soul";
import { COMPACTION_OUTPUT_PREFIX, COMPACTION_SYSTEM_PROMPT, SimpleCompaction, type CompactionOptions } from "@kosong/soul/compaction";
import { describe, expect, it } from "vitest";
import { collect, ofType, outline, testSoul } from "./helpers.js";

/** A strategy without an LLM: keeps the last `keep` messages, remembers what it was given. */
function keepLast(keep: number) {
  const seen: Array<{ history: readonly Message[]; options: CompactionOptions | undefined }> = [];
  const strategy: Compaction = {
    name: "keep-last",
    compact: async (history, options) => {
      seen.push({ history, options });
      return { messages: history.slice(-keep), usage: null, details: { kept: keep, dropped: history.length - keep, stubs: 0, filesRecovered: [], summarized: false, notes: [] } };
    },
  };
  return { strategy, seen };
}

const usage = (input: number) => `usage: {"input_other": ${input}, "output": 1}`;

/** A long tail for an answer, so that a summary has something to shrink (a compaction never grows the context). */
const LONG = ", and here is what I found in detail".repeat(80);

describe("compaction in the loop", () => {
  it("compacts with SimpleCompaction when the context reaches the trigger", async () => {
    const { soul, context, provider } = await testSoul({
      onDisk: true,
      config: { maxContextSize: 10_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5 },
      scripts: [`text: first answer${LONG}\n${usage(2000)}`, `text: second answer\n${usage(6000)}`, "text: SUMMARY of the start", `text: third answer\n${usage(900)}`],
    });
    await collect(soul.run("one"));
    const { events: second } = await collect(soul.run("two"));
    expect(ofType(second, "CompactionBegin")).toEqual([]);
    const before = outline(context);

    const { events, result } = await collect(soul.run("three"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "CompactionBegin").map((e) => e.payload)).toEqual([{ reason: "auto", strategy: "simple" }]);
    const end = ofType(events, "CompactionEnd")[0]!.payload;
    expect(end.tokens_before).toBeGreaterThanOrEqual(6000);
    expect(end.tokens_after).toBeLessThan(100);
    expect(end.details).toMatchObject({ summarized: true });
    expect(provider.calls[2]!.systemPrompt).toBe(COMPACTION_SYSTEM_PROMPT);
    const compacted = outline(context);
    expect(compacted[0]).toContain(COMPACTION_OUTPUT_PREFIX.trim());
    expect(compacted[0]).toContain("SUMMARY of the start");
    expect(compacted.slice(1)).toEqual(["assistant:second answer", "user:three", "assistant:third answer"]);
    expect(provider.calls[3]!.history[0]).toEqual(context.history[0]);
    expect(context.systemPrompt).toBe("You are a test agent.");

    const rotations = await context.rotations();
    await context.restoreRotation(rotations.at(-1)!.n);
    expect(outline(context).slice(0, before.length)).toEqual(before);
  });

  it("compacts once and calls again after a context overflow", async () => {
    const { strategy, seen } = keepLast(1);
    const { soul, context, provider } = await testSoul({ compaction: strategy, scripts: ["text: a", "error: 400 prompt is too long", "text: fits now"] });
    await collect(soul.run("first"));
    const { events, result } = await collect(soul.run("second"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "CompactionBegin").map((e) => e.payload.reason)).toEqual(["overflow"]);
    expect(seen).toHaveLength(1);
    expect(outline(context)).toEqual(["user:second", "assistant:fits now"]);
    expect(provider.calls[2]!.history.map((m) => extractText(m))).toEqual(["second"]);
  });

  it("ends the turn with the error when the call overflows again after compacting", async () => {
    const { strategy } = keepLast(1);
    const { soul } = await testSoul({ compaction: strategy, scripts: ["error: 400 prompt is too long", "error: 400 prompt is too long", "text: never"] });
    const { events, result } = await collect(soul.run("big"));
    expect(result.stopReason).toBe("error");
    expect(result.error?.message).toContain("prompt is too long");
    expect(ofType(events, "CompactionBegin")).toHaveLength(1);
  });

  it("ends the turn with the overflow error when the soul has no strategy", async () => {
    const { soul } = await testSoul({ compaction: null, scripts: ["error: 400 prompt is too long"] });
    const { result, events } = await collect(soul.run("big"));
    expect(result.stopReason).toBe("error");
    expect(ofType(events, "CompactionBegin")).toEqual([]);
  });

  it("compacts on demand with the user's instruction", async () => {
    const { strategy, seen } = keepLast(2);
    const { soul, context } = await testSoul({ compaction: strategy, scripts: ["text: one", "text: two"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    const tokensBefore = soul.status.contextTokens;
    const { events, result } = await collect(soul.compact("keep the file names"));
    expect(seen[0]!.options).toMatchObject({ instruction: "keep the file names" });
    expect(seen[0]!.options?.files).toBe(soul.session.files);
    expect(events.map((e) => e.type)).toEqual(["CompactionBegin", "CheckpointCreated", "CompactionEnd"]);
    expect(result).toMatchObject({ usage: null, details: { dropped: 2 } });
    expect(result.tokensBefore).toBe(tokensBefore);
    expect(result.tokensAfter).toBe(soul.status.contextTokens);
    expect(outline(context)).toEqual(["user:b", "assistant:two"]);
    // The two turns made checkpoints 0 to 3 (a turn's and a step's each): the compaction's goes on from them.
    expect(context.checkpoints.map((c) => c.id)).toEqual([4]);
  });

  it("drops the old conversation's checkpoint messages; ids go on, so an old id names no other point and a D-Mail to it is refused", async () => {
    const { strategy } = keepLast(3);
    const { soul, context } = await testSoul({ compaction: strategy, tools: [SendDMail], scripts: ["text: one", "text: two"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    expect(outline(context).slice(-3)).toEqual(["user:b", "user:<system>CHECKPOINT 3</system>", "assistant:two"]);
    await collect(soul.compact());
    expect(outline(context)).toEqual(["user:<system>CHECKPOINT 4</system>", "user:b", "assistant:two"]);
    expect(context.nCheckpoints).toBe(5);
    expect(() => soul.session.denwaRenji.sendDMail({ checkpoint_id: 2, message: "back" })).toThrow(/Checkpoint 2 does not exist any more: a compaction removed it \(existing checkpoints: 4 to 4\)/);
    await expect(context.revertTo(2)).rejects.toThrow(/2/);
  });

  it("keeps every label given to soul.run resolving after a compaction, also one made in the middle of a turn", async () => {
    const { strategy } = keepLast(2);
    const { soul, context } = await testSoul({
      compaction: strategy,
      scripts: ["text: one", "text: two", "error: 400 prompt is too long", "text: three", "text: four"],
    });
    await collect(soul.run("a", { label: "before-a" }));
    // Long enough that the compaction in the middle of the turn (which drops it) makes the context smaller.
    const b = `b ${"and some more words ".repeat(20)}`.trim();
    await collect(soul.run(b, { label: "before-b" }));
    await collect(soul.compact());
    expect(outline(context)).toEqual([`user:${b}`, "assistant:two"]);
    // The provider reports an overflow: the turn compacts in its middle, after its labelled checkpoint.
    await collect(soul.run("c", { label: "before-c" }));
    const compacted = ["user:<system>The conversation continues from an earlier part that is not shown.</system>", "assistant:two", "user:c"];
    expect(outline(context)).toEqual([...compacted, "assistant:three"]);
    await collect(soul.run("d"));
    // A label resolves to the compacted conversation as the compaction wrote it: what came after is undone.
    await context.revertTo("before-c");
    expect(outline(context)).toEqual(compacted);
    // The labels of the first compaction went through the second one too.
    await context.revertTo("before-b");
    expect(outline(context)).toEqual(compacted);
    await context.revertTo("before-a");
    expect(outline(context)).toEqual(compacted);
  });

  it("with D-Mail on, the default SimpleCompaction keeps the model's last answer, not a checkpoint marker in its place (issue 28.3)", async () => {
    const { soul, context } = await testSoul({
      tools: [SendDMail],
      config: { maxContextSize: 10_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5 },
      scripts: [`text: first answer${LONG}\n${usage(2000)}`, `text: THE LAST ANSWER: parseRows splits too early\n${usage(6000)}`, "text: SUMMARY of the start", `text: third answer\n${usage(900)}`],
    });
    await collect(soul.run("one"));
    await collect(soul.run("two"));
    const { events } = await collect(soul.run("three"));
    expect(ofType(events, "CompactionBegin").map((e) => e.payload.strategy)).toEqual(["simple"]);
    const compacted = outline(context);
    expect(compacted).toContain("assistant:THE LAST ANSWER: parseRows splits too early");
    expect(compacted.indexOf("assistant:THE LAST ANSWER: parseRows splits too early")).toBeLessThan(compacted.indexOf("user:three"));
  });

  it("retries the strategy's LLM call on a retryable error", async () => {
    const { soul, context } = await testSoul({ compaction: new SimpleCompaction({ keepRecent: 1 }), scripts: [`text: one${LONG}`, "text: two", "error: 503 busy", "text: the summary"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    const { events } = await collect(soul.compact());
    expect(ofType(events, "StepRetry").map((e) => e.payload.n)).toEqual([0]);
    expect(extractText(context.history[0]!)).toContain("the summary");
  });

  it("falls back to the extractive summary when the strategy's model keeps failing, and the turn goes on", async () => {
    const { soul, context } = await testSoul({
      compaction: new SimpleCompaction({ keepRecent: 1 }),
      config: { maxRetriesPerStep: 1 },
      scripts: [`text: one${LONG}`, "text: two", "error: 503 busy", "error: 503 still busy"],
    });
    await collect(soul.run("fix the parser in src/parse.ts"));
    await collect(soul.run("go on"));
    const { events, result } = await collect(soul.compact());
    expect(ofType(events, "StepRetry")).toHaveLength(1);
    expect(result.details?.notes.join(" ")).toMatch(/unusable \(the model failed: .*still busy.*fell back to the extractive summary/);
    expect(extractText(context.history.find((m) => extractText(m).includes(COMPACTION_OUTPUT_PREFIX))!)).toContain("fix the parser in src/parse.ts");
  });

  it("never wipes the conversation with a blank summary (SimpleCompaction, the CLI's default)", async () => {
    const { soul, context } = await testSoul({ compaction: new SimpleCompaction({ keepRecent: 1 }), scripts: ["text: one", "text: \u0020\u0020"] });
    await collect(soul.run("keep the public API unchanged"));
    const { result } = await collect(soul.compact());
    expect(result.details?.notes.join(" ")).toMatch(/summary was unusable/);
    expect(context.history.map((m) => extractText(m)).join("\n")).toContain("keep the public API unchanged");
  });

  it("changes nothing when there is nothing to compact", async () => {
    const { soul, context } = await testSoul({ scripts: ["text: one"] });
    await collect(soul.run("a"));
    const { result } = await collect(soul.compact());
    expect(result.details).toMatchObject({ summarized: false, dropped: 0 });
    expect(outline(context)).toEqual(["user:a", "assistant:one"]);
    expect(await context.rotations()).toEqual([]);
  });

  it("fails compact() with a typed error when there is no strategy or a turn runs", async () => {
    const { soul } = await testSoul({ compaction: null, scripts: ["text: one"] });
    await expect(soul.compact().result).rejects.toThrowError(SoulError);
    const turn = soul.run("a");
    expect(() => soul.compact()).toThrowError(SoulBusyError);
    await turn.result;
  });
});
