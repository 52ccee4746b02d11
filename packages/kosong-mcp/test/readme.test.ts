/**
 * The README is what npm shows: its example is the one in `examples/`, it
 * runs as written on the built package against the real filesystem server
 * and prints what its comments promise, and its links stay on the web.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("../", import.meta.url));
const readme = await readFile(path.join(packageDir, "README.md"), "utf8");
const exampleFile = path.join(packageDir, "examples/read-a-file.ts");
const example = await readFile(exampleFile, "utf8");

describe("README", () => {
  it("shows the example of examples/read-a-file.ts, and links only to the web", () => {
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    expect(links.filter((link) => !/^https?:/.test(link))).toEqual([]);
  });

  it("runs the example on the built package and prints what it promises", async () => {
    const built = (await stat(path.join(packageDir, "dist/index.js"))).mtimeMs;
    const sources = await readdir(path.join(packageDir, "src"));
    const newest = Math.max(...(await Promise.all(sources.map(async (name) => (await stat(path.join(packageDir, "src", name))).mtimeMs))));
    expect(built, "dist is older than src: build @kosong/mcp first").toBeGreaterThanOrEqual(newest);
    const bin = path.join(packageDir, "node_modules/.bin");
    const { stdout } = await promisify(execFile)(process.execPath, [exampleFile], { cwd: packageDir, env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` } });
    const promised = [...example.matchAll(/^\/\/ -> (.*)$/gm)].map((match) => `${match[1]}\n`);
    expect(promised).toHaveLength(3);
    expect(stdout).toBe(promised.join(""));
  });
});
