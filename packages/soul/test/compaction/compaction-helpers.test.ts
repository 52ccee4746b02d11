import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantMessage, toolCall, userMessage } from "@kosong/core";
import { checkCompaction, nodeFileReader, truncateText, withLineNumbers } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { o200kTokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

describe("truncateText", () => {
  const text = Array.from({ length: 400 }, (_, i) => `line ${i}: some words here`).join("\n");

  it("returns a text that fits as it is", () => {
    expect(truncateText("short", 10, o200kTokenizer)).toBe("short");
  });

  it("cuts at a line boundary, with a marker saying how much went", () => {
    const cut = truncateText(text, 200, o200kTokenizer);
    expect(o200kTokenizer.count(cut)).toBeLessThanOrEqual(200);
    const [head, marker] = cut.split("\n[... ");
    expect(head!.split("\n").every((line) => /^line \d+: some words here$/.test(line))).toBe(true);
    expect(marker).toMatch(/^\d+ tokens cut \.\.\.\]\n$/);
  });

  it("keeps the end too when asked (logs)", () => {
    const cut = truncateText(text, 200, o200kTokenizer, true);
    expect(cut.startsWith("line 0:")).toBe(true);
    expect(cut.endsWith("line 399: some words here")).toBe(true);
  });
});

describe("withLineNumbers", () => {
  it("numbers lines from 1, right-aligned", () => {
    expect(withLineNumbers(Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n")).split("\n").slice(8)).toEqual([" 9\tl8", "10\tl9"]);
  });
});

describe("checkCompaction", () => {
  it("passes a valid result through and repairs an invalid one with notes", () => {
    const valid = { messages: [userMessage("hi")], usage: null };
    expect(checkCompaction(valid)).toEqual({ result: valid, violations: [] });

    const broken = { messages: [userMessage("hi"), assistantMessage("", [toolCall("c1", "Read", { path: "/a" })])], usage: null };
    const checked = checkCompaction(broken);
    expect(checked.violations.map((v) => v.kind)).toEqual(["missing-tool-result"]);
    expect(validateConversation(checked.result.messages)).toEqual([]);
    expect(checked.result.details!.notes[0]).toMatch(/^Repaired the compacted conversation: Tool call c1 has no result/);
  });
});

describe("nodeFileReader", () => {
  it("reads at most maxBytes of a real file, and rejects a missing one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kosong-reader-"));
    try {
      await writeFile(join(dir, "a.txt"), "0123456789");
      expect(await nodeFileReader(4)(join(dir, "a.txt"))).toBe("0123");
      expect(await nodeFileReader()(join(dir, "a.txt"))).toBe("0123456789");
      await expect(nodeFileReader()(join(dir, "missing.txt"))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
