/**
 * The README is what npm shows: its links must resolve inside the published
 * package, and its example must run as written on the built package,
 * printing what its `// ->` lines say.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "@kosong/test-support";

const packageDir = fileURLToPath(new URL("../", import.meta.url));
const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
const published: string[] = (JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { files: string[] }).files;
const programs = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("README on npm", () => {
  it("links only to pages on the web, anchors, or files in the published package", () => {
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    const local = targets.filter((target) => !/^(https?:|mailto:|#)/.test(target));
    const outside = local.filter((target) => {
      const relative = path.posix.normalize(target.split("#")[0]!);
      return !published.some((entry) => relative === entry || relative.startsWith(`${entry}/`)) || !existsSync(path.join(packageDir, relative));
    });
    expect(outside).toEqual([]);
  });

  it("runs its example as written on the built package", async () => {
    expect(existsSync(path.join(packageDir, "dist", "index.js"))).toBe(true);
    expect(programs).toHaveLength(1);
    const code = programs[0]!;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module-typescript", "-e", code], {
      cwd: packageDir,
      env: { ...process.env, TMPDIR: await tempDir() },
    });
    const promised = [...code.matchAll(/^\/\/ -> (.*)$/gm)].map((match) => match[1]);
    expect(promised).toHaveLength(4);
    expect(stdout).toBe(promised.map((line) => `${line}\n`).join(""));
  });
});
