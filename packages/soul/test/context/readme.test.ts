/** The README's Context example runs as written and prints what its comments say. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it, vi } from "vitest";
import { tempDir } from "./helpers/temp-dir.js";

const readme = fileURLToPath(new URL("../../README.md", import.meta.url));

/** The first ```ts block after the "## Context" heading. */
async function contextExample(): Promise<string> {
  const text = await readFile(readme, "utf8");
  const section = text.slice(text.indexOf("\n## Context\n"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match === null) throw new Error("no ts block in the README's Context section");
  return match[1]!;
}

it("the README's Context example runs and prints what it says", async () => {
  const code = await contextExample();
  const file = path.join(await tempDir(), "readme-context.ts");
  await writeFile(file, code);
  const logs: unknown[][] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    log.mockRestore();
  }
  // Each `console.log(...); // [what it is: ]a b c` prints the numbers a b c.
  const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (?:.*: )?(.+)$/gm)].map((m) => m[1]!.split(" ").map(Number));
  expect(promised).toHaveLength(3);
  expect(logs).toEqual(promised);
});
