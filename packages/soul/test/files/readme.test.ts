/** The README's file-restore example runs as written and prints what its comments say. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it, vi } from "vitest";
import { tempDir } from "../context/helpers/temp-dir.js";

const readme = fileURLToPath(new URL("../../README.md", import.meta.url));

it("the README's file-restore example restores the file and undoes the restore", async () => {
  const text = await readFile(readme, "utf8");
  const section = text.slice(text.indexOf("\n### Files restored with the conversation\n"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const file = path.join(await tempDir(), "readme-files.ts");
  await writeFile(file, code);
  const logs: unknown[][] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    log.mockRestore();
  }
  expect(logs).toEqual([[{ restored: ["notes.md"], skipped: [], conflicts: [] }, "draft 1\n"], ["draft 2\n"]]);
});
