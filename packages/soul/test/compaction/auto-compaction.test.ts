import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractText, type FinishReason, type Message, textPart, userMessage } from "@kosong/core";
import { MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { type Compaction, FileRegistry } from "@kosong/soul";
import { AUTO_SUMMARY_SECTIONS, AutoCompaction, checkSummary, PreserveRecentCompaction } from "@kosong/soul/compaction";
import { estimateTokens } from "@kosong/soul/tokens";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allText, expectValidWithin, prose, taskHistory, toolRound } from "./helpers/histories.js";

const GOOD = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nDetails about ${section.toLowerCase()}.`).join("\n\n");

function model(text: string, finishReason: FinishReason | null = null, name = "mock"): MockChatProvider {
  const provider = new MockChatProvider(text === "" ? [] : [textPart(text)], { finishReason, usage: { input_other: 500, output: 80, input_cache_read: 0, input_cache_creation: 0 } });
  Object.defineProperty(provider, "modelName", { value: name });
  return provider;
}

const history = (): Message[] => taskHistory(12, 120, "Port the CLI to Node 24. Keep the flags as they are.");

describe("checkSummary", () => {
  it("accepts a summary with the eight sections and rejects the rest", () => {
    expect(checkSummary(GOOD, "stop")).toBeNull();
    expect(checkSummary("  \n", "stop")).toBe("empty");
    expect(checkSummary(`Error: the context is too long.\n${GOOD}`, "stop")).toBe("error-like");
    expect(checkSummary("I'm sorry, I cannot help with that.", "stop")).toBe("error-like");
    expect(checkSummary(`Error handling moved to one module.\n${GOOD}`, "stop")).toBeNull();
    expect(checkSummary("Sure, here is the summary you asked for.", "stop")).toBe("acknowledgement");
    expect(checkSummary(GOOD, "max_tokens")).toBe("truncated");
    expect(checkSummary("## Technical Context\nTS\n\n## Current Status\nfine", "stop")).toBe("missing-sections");
    const decorated = AUTO_SUMMARY_SECTIONS.map((section, i) => `### ${i + 1}. **${section.replace(" and ", " & ")}**:\nText.`).join("\n");
    expect(checkSummary(decorated, "stop")).toBeNull();
  });
});

describe("AutoCompaction", () => {
  it("summarises with the compact model when the history fits 90 % of its window", async () => {
    const compact = model(GOOD, "stop", "small-fast");
    const main = model("never used");
    const input = history();
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const strategy = new AutoCompaction({ maxTokens, compactModel: { provider: compact, contextSize: 100_000 } });
    const result = await strategy.compact(input, { provider: main, instruction: "mention the flags" });
    expectValidWithin(result, maxTokens);
    expect(main.calls).toHaveLength(0);
    const request = extractText(compact.calls[0]!.history[0]!);
    for (const section of AUTO_SUMMARY_SECTIONS) expect(request).toContain(`## ${section}`);
    expect(request).toContain("mention the flags");
    const summary = extractText(result.messages[0]!);
    expect(summary).toContain("Context compressed using the compact model (small-fast).");
    expect(summary).toContain("## Key Decisions");
    expect(result.messages.slice(1)).toEqual(input.slice(-(result.messages.length - 1)));
    expect(result.usage).toEqual({ input_other: 500, output: 80, input_cache_read: 0, input_cache_creation: 0 });
    expect(result.details).toMatchObject({ summarized: true });
  });

  it("uses the main model when the history does not fit 90 % of the compact model's window", async () => {
    const compact = model(GOOD);
    const main = model(GOOD, "stop", "big");
    const input = history();
    const strategy = new AutoCompaction({ maxTokens: 2000, compactModel: { provider: compact, contextSize: Math.floor(estimateTokens(input) / 0.9) - 10 } });
    const result = await strategy.compact(input, { provider: main });
    expect(compact.calls).toHaveLength(0);
    expect(extractText(result.messages[0]!)).toContain("using the main model (big)");
    expect(result.details!.notes.join("\n")).toMatch(/does not fit 90 %/);
  });

  const rejected: Array<[string, MockChatProvider | ScriptedChatProvider, RegExp]> = [
    ["an empty response", model(""), /empty response/i],
    ["a blank summary", model("   \n  "), /empty summary/],
    ["an error-like summary", model(`Error: rate limited.\n${GOOD}`), /error-like summary/],
    ["an acknowledgement only", model("Understood, I will summarise."), /acknowledgement summary/],
    ["a summary cut off at max tokens", model(GOOD, "max_tokens"), /truncated summary/],
    ["a summary missing sections", model("## Technical Context\nNode 24"), /missing-sections summary/],
    ["a provider error", new ScriptedChatProvider(["error: 503 overloaded"]), /overloaded/],
  ];
  for (const [what, compact, note] of rejected) {
    it(`falls back from the compact model to the main model on ${what}`, async () => {
      const main = model(GOOD, "stop", "main");
      const input = history();
      const maxTokens = Math.floor(estimateTokens(input) * 0.3);
      const result = await new AutoCompaction({ maxTokens, compactModel: { provider: compact, contextSize: 1_000_000 } }).compact(input, { provider: main });
      expectValidWithin(result, maxTokens);
      expect(compact.calls).toHaveLength(1);
      expect(main.calls).toHaveLength(1);
      expect(extractText(result.messages[0]!)).toContain("using the main model (main)");
      expect(result.details!.notes.join("\n")).toMatch(note);
    });
  }

  it("falls back to SmartCompaction's extractive summary when both models fail, then to plain truncation", async () => {
    const input = history();
    const maxTokens = Math.floor(estimateTokens(input) * 0.3);
    const strategy = new AutoCompaction({ maxTokens, compactModel: { provider: model("ok"), contextSize: 1_000_000 } });
    const result = await strategy.compact(input, { provider: model("Sorry, I can't do that.") });
    expectValidWithin(result, maxTokens);
    expect(allText(result.messages)).toContain("Port the CLI to Node 24. Keep the flags as they are.");
    expect(result.details!.notes.join("\n")).toMatch(/Fell back to smart/);
    expect(result.usage?.input_other).toBe(1000);

    const broken: Compaction = { name: "broken", compact: () => Promise.reject(new Error("disk on fire")) };
    const last = new AutoCompaction({ maxTokens, fallbacks: [broken, new PreserveRecentCompaction({ maxTokens })] });
    const truncated = await last.compact(input, { provider: model("") });
    expectValidWithin(truncated, maxTokens);
    expect(allText(truncated.messages)).toMatch(/earlier messages were removed/);
    expect(truncated.details!.notes.join("\n")).toMatch(/broken failed: disk on fire[\s\S]*Fell back to preserve-recent/);
  });

  it("cuts a summary that would crowd out the recent messages", async () => {
    // Shorter than the messages it replaces (or it would be refused), longer than the room it has.
    const long = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\n${prose(250, "detail")}`).join("\n\n");
    const input = history();
    const result = await new AutoCompaction({ maxTokens: 2000 }).compact(input, { provider: model(long) });
    expectValidWithin(result, 2000);
    expect(extractText(result.messages[0]!)).toMatch(/## Technical Context[\s\S]*tokens cut \.\.\.\]/);
    expect(result.messages.at(-1)).toBe(input.at(-1));
  });

  it("does not retry a failing model on every compaction", async () => {
    const compact = model("");
    const main = model(GOOD);
    const strategy = new AutoCompaction({ maxTokens: 1500, compactModel: { provider: compact, contextSize: 1_000_000 }, failureCooldown: 2 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await strategy.compact(history(), { provider: main }));
    expect(compact.calls).toHaveLength(2); // compactions 1 and 4; 2 and 3 skip it
    expect(main.calls).toHaveLength(4);
    expect(results[1]!.details!.notes.join("\n")).toMatch(/Skipped the compact model: it failed recently/);
  });

  it("tries a model on cooldown again when the compaction is explicit, and lists each rejected summary", async () => {
    const main = model("Sure, here is the summary you asked for.", "stop", "chatty");
    const strategy = new AutoCompaction({ maxTokens: 1500, failureCooldown: 3 });
    const first = await strategy.compact(history(), { provider: main });
    expect(first.details!.rejectedSummaries).toEqual(["main model (chatty): acknowledgement summary"]);
    expect(first.details!.fallback).toBe("smart");
    // An automatic trigger rests the model...
    const automatic = await strategy.compact(history(), { provider: main });
    expect(main.calls).toHaveLength(1);
    expect(automatic.details!.rejectedSummaries).toEqual([]);
    expect(automatic.details!.notes.join("\n")).toMatch(/Skipped the main model: it failed recently/);
    // ...the user's /compact asks it again, and its rejection is reported as one.
    const explicit = await strategy.compact(history(), { provider: main, explicit: true });
    expect(main.calls).toHaveLength(2);
    expect(explicit.details!.rejectedSummaries).toEqual(["main model (chatty): acknowledgement summary"]);
    const good = model(GOOD, "stop", "fixed");
    const after = await strategy.compact(history(), { provider: good, explicit: true });
    expect(after.details).toMatchObject({ summarized: true, rejectedSummaries: [] });
    expect(after.details!.fallback).toBeUndefined();
    expect(extractText(after.messages[0]!)).toContain("Context compressed using the main model (fixed)");
  });

  it("lets an abort through instead of falling back", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new AutoCompaction({ maxTokens: 1000 }).compact(history(), { provider: model(GOOD), signal: controller.signal })).rejects.toThrow(/abort/i);
  });
});

describe("AutoCompaction file recovery", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "kosong-recovery-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("recovers up to 5 recent files with line numbers, each cut at a line boundary, skipping kept and unreadable ones", async () => {
    const files = new FileRegistry();
    for (let i = 0; i < 8; i++) {
      await writeFile(join(dir, `f${i}.ts`), `export const f${i} = ${i};\nexport const g${i} = "${i}";\n`);
      files.recordRead(join(dir, `f${i}.ts`));
    }
    const big = join(dir, "big.ts");
    await writeFile(big, Array.from({ length: 5000 }, (_, i) => `const line${i} = "${"x".repeat(20)} ${i}";`).join("\n"));
    files.recordWrite(big);
    files.recordRead(join(dir, "deleted.ts"));
    const shown = join(dir, "shown.ts");
    await writeFile(shown, "in the tail");
    files.recordRead(shown);

    const input = [...history(), userMessage("read shown.ts"), ...toolRound("c99", "Read", shown, "in the tail")];
    const readText = (path: string) => readFile(path, "utf8");
    const strategy = new AutoCompaction({ maxTokens: 12_000, readFile: readText, maxTokensPerFile: 1000 });
    const result = await strategy.compact(input, { provider: model(GOOD), files });
    expectValidWithin(result, 12_000);

    const recovered = result.details!.filesRecovered;
    expect(recovered).toEqual([big, join(dir, "f7.ts"), join(dir, "f6.ts"), join(dir, "f5.ts"), join(dir, "f4.ts")]);
    expect(result.details!.notes.join("\n")).toContain(`${shown}: already in the kept messages`);
    expect(result.details!.notes.join("\n")).toMatch(/deleted\.ts: ENOENT/);

    const texts = result.messages.map((m) => extractText(m));
    const bigText = texts.find((t) => t.includes("Recovered file: " + big))!;
    expect(bigText).toMatch(/\n   1\tconst line0 = /);
    expect(bigText).toMatch(/\[\.\.\. \d+ tokens cut \.\.\.\]/);
    expect(bigText).toContain("(truncated)");
    const lastLine = bigText.split("\n[...")[0]!.split("\n").at(-1)!;
    expect(lastLine).toMatch(/^ *\d+\tconst line\d+ = "x{20} \d+";$/);
    expect(texts.find((t) => t.includes("f7.ts"))).toContain(`1\texport const f7 = 7;\n2\texport const g7 = "7";`);
  });

  it("recovers nothing without a file reader", async () => {
    const files = new FileRegistry();
    files.recordRead("/etc/hosts");
    const result = await new AutoCompaction({ maxTokens: 3000 }).compact(history(), { provider: model(GOOD), files });
    expect(result.details!.filesRecovered).toEqual([]);
  });
});
