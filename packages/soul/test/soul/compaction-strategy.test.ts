/**
 * The strategy a soul compacts with and what it does with the output: the
 * default choice, the check (and repair) of every result before it replaces
 * the context, and AutoCompaction's file recovery from the session's real
 * files.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { assistantMessage, defineTool, extractText, textPart, toolCall, toolMessage, userMessage } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { type Compaction } from "@kosong/soul";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, COMPACTION_SYSTEM_PROMPT, type CompactionOptions } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, collect, ofType, outline, script, tempDir, testSoul } from "./helpers.js";

const usage = (input: number) => `usage: {"input_other": ${input}, "output": 1}`;

/** Triggers auto-compaction once the provider reports 6,000 tokens. */
const trigger = { maxContextSize: 10_000, reservedContextSize: 1000, compactionTriggerRatio: 0.5 };

/** A strategy that returns `output` and remembers the options it got. */
function fixed(output: Parameters<Compaction["compact"]>[0]) {
  const seen: Array<CompactionOptions | undefined> = [];
  const strategy: Compaction = {
    name: "fixed",
    compact: async (_history, options) => {
      seen.push(options);
      return { messages: [...output], usage: null };
    },
  };
  return { strategy, seen };
}

/** A long tail for an answer, so that a summary has something to shrink. */
const LONG = ", and here is what I found in detail".repeat(80);

describe("the soul's default strategy", () => {
  it("is SimpleCompaction, summarising with the agent's model", async () => {
    // The first answer is long: a summary has something to shrink (a compaction never grows the context).
    const { soul, provider, context } = await testSoul({ scripts: [`text: one${LONG}`, "text: two", "text: THE SUMMARY"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    const { events } = await collect(soul.compact());
    expect(ofType(events, "CompactionBegin")[0]!.payload.strategy).toBe("simple");
    expect(provider.calls[2]!.systemPrompt).toBe(COMPACTION_SYSTEM_PROMPT);
    expect(extractText(context.history[0]!)).toContain("THE SUMMARY");
  });

  it("summarises with compactionProvider when one is given", async () => {
    const summariser = new ScriptedChatProvider(["text: CHEAP SUMMARY"]);
    const { soul, provider, context } = await testSoul({ compactionProvider: summariser, scripts: [`text: one${LONG}`, "text: two"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    await collect(soul.compact());
    expect(provider.calls).toHaveLength(2);
    expect(summariser.calls[0]!.systemPrompt).toBe(COMPACTION_SYSTEM_PROMPT);
    expect(extractText(context.history[0]!)).toContain("CHEAP SUMMARY");
  });

  it("is PreserveImportantCompaction with compactionProvider: null, and no model is asked", async () => {
    const big = Array.from({ length: 2_000 }, (_, i) => `line ${i}: value ${i * 7}`).join("\n");
    const { soul, provider, context } = await testSoul({
      compactionProvider: null,
      config: { maxContextSize: 4_000, reservedContextSize: 500 },
      tools: [defineTool({ name: "Dump", description: "dumps", parameters: z.object({}), execute: async () => big })],
      scripts: [script(call("c1", "Dump")), "text: dumped, and I decided to keep it"],
    });
    // The dump is past the trigger (0.85 of 4,000 tokens): the step after the tool compacts.
    const { events } = await collect(soul.run("Dump it. Never delete files."));
    expect(ofType(events, "CompactionBegin").map((e) => e.payload)).toEqual([{ reason: "auto", strategy: "preserve-important" }]);
    expect(provider.calls).toHaveLength(2);
    const end = ofType(events, "CompactionEnd")[0]!.payload;
    expect(end.details).toMatchObject({ excerpts: 1, dropped: 0, summarized: false });
    expect(end.tokens_after).toBeLessThan(end.tokens_before / 10);
    expect(outline(context)).toContain("user:Dump it. Never delete files.");
    expect(outline(context).join("\n")).toContain("[excerpt: ");
    expect(validateConversation(context.history)).toEqual([]);
  });

  it("needs the context window without a model, and says so", async () => {
    await expect(testSoul({ compactionProvider: null, scripts: [] })).rejects.toThrowError(/maxContextSize/);
    await expect(testSoul({ compactionProvider: null, compaction: fixed([]).strategy, scripts: [] })).resolves.toHaveProperty("soul");
  });

  it("passes the compaction model, or none, to an explicit strategy", async () => {
    const none = fixed([userMessage("kept")]);
    const { soul } = await testSoul({ compactionProvider: null, compaction: none.strategy, scripts: ["text: one"] });
    await collect(soul.run("a"));
    await collect(soul.compact());
    expect(none.seen[0]!.provider).toBeUndefined();
    expect(none.seen[0]!.readFile).toBeTypeOf("function");
  });
});

describe("every compaction result is checked before it replaces the context", () => {
  it("repairs an invalid conversation and reports the repairs in CompactionEnd", async () => {
    const { strategy } = fixed([
      toolMessage("ghost", "an orphan result"),
      userMessage("what the user asked"),
      assistantMessage("calling", [toolCall("c9", "Shell", { command: "ls" })]),
    ]);
    const { soul, context, provider } = await testSoul({ compaction: strategy, scripts: ["text: one", "text: after the compaction"] });
    // Long enough that the repaired result is still smaller than the history (a compaction never grows the context).
    await collect(soul.run(`a ${"and some more words ".repeat(20)}`));
    const { events } = await collect(soul.compact());
    const end = ofType(events, "CompactionEnd")[0]!.payload;
    expect(end.details).not.toBeNull();
    const notes = end.details!.notes.filter((n) => n.startsWith("Repaired the compacted conversation"));
    expect(notes.length).toBeGreaterThanOrEqual(2);
    expect(notes.join("\n")).toMatch(/ghost/);
    expect(notes.join("\n")).toMatch(/c9/);
    expect(validateConversation(context.history)).toEqual([]);
    expect(outline(context)[0]).toBe("user:what the user asked");

    const { result } = await collect(soul.run("go on"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(validateConversation(provider.calls[1]!.history)).toEqual([]);
  });

  it("keeps a valid result as the strategy made it, without notes", async () => {
    const { strategy } = fixed([userMessage("b"), assistantMessage("two")]);
    const { soul, context } = await testSoul({ compaction: strategy, scripts: ["text: one", "text: two"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    const { events } = await collect(soul.compact());
    expect(ofType(events, "CompactionEnd")[0]!.payload.details).toBeNull();
    expect(outline(context)).toEqual(["user:b", "assistant:two"]);
  });
});

describe("explicit and automatic compactions", () => {
  it("tells the strategy that soul.compact() was asked for and the trigger was not", async () => {
    const { strategy, seen } = fixed([userMessage("the gist")]);
    const { soul } = await testSoul({ config: trigger, compaction: strategy, scripts: [`text: one\n${usage(6000)}`, "text: two"] });
    await collect(soul.run("a"));
    await collect(soul.run("b"));
    await collect(soul.compact());
    expect(seen.map((options) => options?.explicit)).toEqual([false, true]);
  });
});

describe("AutoCompaction inside a soul", () => {
  const summary = AUTO_SUMMARY_SECTIONS.map((s) => `## ${s}\nThe notes config was written.`).join("\n\n");

  it("recovers the file a tool wrote, read back from disk, and reports it in CompactionEnd", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "notes.md");
    const WriteFile = defineTool({
      name: "WriteFile",
      description: "Writes a file.",
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path: target, content }, context) => {
        await writeFile(target, content);
        context.session?.files.recordWrite(target);
        return `wrote ${target}`;
      },
    });
    const content = "# Notes\nalpha = 1\nbeta = 2\n";
    // The summary comes from a model of its own (its text has the eight headings on lines of their own).
    const summariser = new MockChatProvider([textPart(summary)]);
    const { soul, context } = await testSoul({
      config: trigger,
      compaction: new AutoCompaction({ maxTokens: 4_000 }),
      compactionProvider: summariser,
      tools: [WriteFile],
      scripts: [
        script(call("w1", "WriteFile", { path: file, content })),
        `text: written${LONG}\n${usage(2000)}`,
        `text: ok\n${usage(6000)}`,
        "text: carrying on",
      ],
    });
    await collect(soul.run("write the notes"));
    await collect(soul.run("thanks"));
    // The file changes after the tool wrote it: recovery reads the disk, not the conversation.
    await writeFile(file, `${content}gamma = 3\n`);
    const { events, result } = await collect(soul.run("next"));
    expect(result.stopReason).toBe("no_tool_calls");
    expect(ofType(events, "CompactionBegin")[0]!.payload).toEqual({ reason: "auto", strategy: "auto" });
    const end = ofType(events, "CompactionEnd")[0]!.payload;
    expect(summariser.calls).toHaveLength(1);
    expect(end.details).toMatchObject({ filesRecovered: [file], summarized: true });
    expect(end.tokens_after).toBeLessThan(end.tokens_before);
    const recovered = context.history.map((m) => extractText(m)).find((t) => t.includes(`Recovered file: ${file}`));
    expect(recovered).toContain("4\tgamma = 3");
    expect(validateConversation(context.history)).toEqual([]);
  });
});
