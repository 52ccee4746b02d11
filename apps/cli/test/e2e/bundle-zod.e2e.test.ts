/**
 * The built bundle carries zod 4 with its English messages only: none of
 * zod's other locales (they came along while the code imported zod's `z`
 * object, which esbuild cannot tree-shake: 370 KB read and compiled at every
 * start) and no zod 3 (`build/no-zod3-json-schema.ts`). Validation errors
 * users see stay English: a config file with a wrong value, through the
 * built binary.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { ensureBuilt, loadedChunks, runKosong } from "./kosong-binary.js";

ensureBuilt();
const tempDir = useTempDirs();

describe("zod in the built bundle", { timeout: 60_000 }, () => {
  it("has none of zod's other locales and no zod 3", async () => {
    const chunks = await loadedChunks();
    const carrying = (text: string) => [...chunks].filter(([, code]) => code.includes(text)).map(([name]) => name);
    expect(carrying("Invalid input: expected")).not.toEqual([]);
    // The Dutch and Indonesian locales' messages; zod-to-json-schema's and zod 3's type names.
    expect(carrying("Ongeldige invoer")).toEqual([]);
    expect(carrying("Input tidak valid")).toEqual([]);
    expect(carrying("ZodFirstPartyTypeKind")).toEqual([]);
  });

  it("still explains a wrong config value in English, naming the key", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await mkdir(path.join(home, ".kosong"));
    const file = path.join(home, ".kosong", "config.json");
    await writeFile(file, JSON.stringify({ max_context_size: "big", hooks: [{ event: "PreToolUse", command: "true", matcher: "(" }] }));
    const result = await runKosong(["-p", "hello"], { cwd, home, env: { OPENAI_API_KEY: "sk-test" } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file} has invalid settings:`);
    expect(result.stderr).toContain("`max_context_size`: Invalid input: expected number, received string");
    expect(result.stderr).toContain("a valid regular expression");
  });
});
