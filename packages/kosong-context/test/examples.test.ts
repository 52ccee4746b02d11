import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { assertDistIsFresh } from "./helpers/child.js";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("../", import.meta.url));

/** Runs an example on the built package and returns its output. */
async function example(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, [`examples/${name}`], { cwd: packageDir });
  return stdout;
}

describe("README examples run as written", () => {
  beforeAll(assertDistIsFresh);

  it("memory-storage.ts", async () => {
    expect(await example("memory-storage.ts")).toBe("2 messages, 21 tokens\n");
  });

  it("jsonl-storage.ts", async () => {
    expect(await example("jsonl-storage.ts")).toBe(
      [
        '{"role":"user","content":"Hello"}',
        '{"role":"assistant","content":"Hi! How can I help?"}',
        '{"role": "_usage", "token_count": 162}',
        "2 messages, 162 tokens, 0 lines skipped",
        "",
      ].join("\n"),
    );
  });

  it("context-file.ts", async () => {
    expect(await example("context-file.ts")).toBe(
      [
        "reverted: 1 message, 100 tokens, next checkpoint 1",
        "kept the old file as context_1.jsonl",
        "restored: 3 messages, reverted file kept as context_2.jsonl",
        "",
      ].join("\n"),
    );
  });
});
