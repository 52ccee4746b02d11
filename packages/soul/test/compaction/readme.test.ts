/** The README's compaction example runs as written and prints what its comments say. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it, vi } from "vitest";

const readme = fileURLToPath(new URL("../../README.md", import.meta.url));

it("the README's compaction example runs and prints what it says", async () => {
  const text = await readFile(readme, "utf8");
  const section = text.slice(text.indexOf("\n## Compaction strategies\n"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const dir = await mkdtemp(path.join(tmpdir(), "kosong-readme-"));
  const logs: unknown[][] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args));
  try {
    await writeFile(path.join(dir, "example.ts"), code);
    await import(pathToFileURL(path.join(dir, "example.ts")).href);
  } finally {
    log.mockRestore();
    await rm(dir, { recursive: true, force: true });
  }
  // Each `console.log(...); // a b c` prints the JSON values a b c.
  const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.+)$/gm)].map((m) => m[1]!.split(" ").map((v) => JSON.parse(v) as unknown));
  expect(promised).toHaveLength(2);
  expect(logs).toEqual(promised);
});
