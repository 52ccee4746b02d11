/** Runs a README example as written: the first ```ts block after a heading, imported from a temp file, its console.log calls captured. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { vi } from "vitest";
import { tempDir } from "@kosong/test-support";

const readme = fileURLToPath(new URL("../../../README.md", import.meta.url));

/** The code of the first ```ts block after the line `heading` of the soul's README, and what its console.log calls printed. */
export async function runReadmeBlock(heading: string): Promise<{ code: string; logs: unknown[][] }> {
  const text = await readFile(readme, "utf8");
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match === null) throw new Error(`no ts block in the README's section ${heading}`);
  const code = match[1]!;
  const file = path.join(await tempDir(), "readme-example.ts");
  await writeFile(file, code);
  const logs: unknown[][] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    log.mockRestore();
  }
  return { code, logs };
}
