/** Grep against hostile patterns: linear-time matching, a clear error for unsupported syntax, and an abort that stops it. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "./temp-dir.js";
import { outputText, toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();

describe("Grep", () => {
  it("runs a catastrophic pattern like (a+)+$ over 'a'*40+'!' in linear time instead of freezing the CLI", async () => {
    const { root, call } = await toolHarness(tempDir);
    await writeFile(path.join(root, "evil.txt"), `${"a".repeat(40)}!\n${"a".repeat(40)}\n`);
    // A backtracking engine takes about 2^40 steps here: this test never ends on such code.
    const result = await call("Grep", { pattern: "(a+)+$" });
    expect(outputText(result)).toBe(`evil.txt:2: ${"a".repeat(40)}`);
    expect(outputText(await call("Grep", { pattern: "(x+x+)+y", path: "evil.txt" }))).toBe("(no match)");
  });

  it("explains RE2 syntax it lacks (lookaround, backreferences) as an error result", async () => {
    const { root, call } = await toolHarness(tempDir);
    await writeFile(path.join(root, "a.txt"), "foobar\n");
    for (const pattern of ["foo(?=bar)", "(o)\\1", "(?<=f)oo", "["]) {
      const result = await call("Grep", { pattern });
      expect(result.is_error, pattern).toBe(true);
      expect(result.message).toMatch(/Invalid or unsupported regular expression: .*RE2 syntax/);
    }
    expect(outputText(await call("Grep", { pattern: "FOO\\w+", ignore_case: true }))).toBe("a.txt:1: foobar");
  });

  it("stops a running search when the turn is aborted", async () => {
    const { root, call } = await toolHarness(tempDir);
    await Promise.all(Array.from({ length: 200 }, (_, i) => writeFile(path.join(root, `f${i}.txt`), `needle ${i}\n`.repeat(200))));
    const abort = new AbortController();
    const running = call("Grep", { pattern: "needle", max_matches: 1000 }, abort.signal);
    abort.abort();
    const result = await running;
    expect(result.is_error).toBe(true);
    expect(result.message).toMatch(/aborted/);
  });
});
