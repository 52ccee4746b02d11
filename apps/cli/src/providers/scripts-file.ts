/**
 * The scripts of `--provider scripted`: a file of echo-DSL responses (see
 * `ScriptedChatProvider` in @kosong/core/testing), one per model call.
 */
import { readFile } from "node:fs/promises";
import { UsageError } from "../cli-error.js";

/**
 * Reads a scripts file: a JSON array of echo-DSL strings (`.json`), or text
 * in which responses are separated by lines holding only `---`.
 */
export async function readScriptsFile(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`--script: cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (file.endsWith(".json")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--script: ${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      throw new UsageError(`--script: ${file} must hold a JSON array of echo-DSL strings`);
    }
    return value;
  }
  return text
    .split(/^---[ \t]*$/m)
    .map((script) => script.trim())
    .filter((script) => script.length > 0);
}
