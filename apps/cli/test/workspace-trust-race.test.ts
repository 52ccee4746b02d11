/**
 * Remembering trust from several kosong processes at the same moment: each
 * process's answer lands in `trusted-workspaces.json` (the store is re-read
 * and replaced under its lock), and a lock left by a dead process does not
 * block the next update.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isTrusted, trustFile, trustWorkspace } from "../src/hooks/workspace-trust.js";
import type { WorkspaceOffer } from "../src/project/workspace-offer.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const repo = fileURLToPath(new URL("../../../", import.meta.url));
const offer: WorkspaceOffer = { hooks: [], mcpServers: [], rules: [{ file: ".kosong/settings.json", lists: { allow: ["Shell(make test)"] } }] };

/** The tests' aliases (vitest.config.ts): each workspace package name and the source file it stands for. */
const aliases = Object.fromEntries(
  [...readFileSync(path.join(repo, "vitest.config.ts"), "utf8").matchAll(/find: \/\^(.+?)\$\/, replacement: here\("(.+?)"\)/g)].map(([, name, file]) => [name!.replaceAll("\\/", "/"), path.join(repo, file!)]),
);

/** Resolves the workspace packages to their sources and a missing `x.js` to `x.ts`, as the tests' aliases do. */
const loader = `import { registerHooks } from "node:module";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
const sources = ${JSON.stringify(aliases)};
registerHooks({ resolve(specifier, context, next) {
  if (sources[specifier]) return next(pathToFileURL(sources[specifier]).href, context);
  if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
    const ts = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (!existsSync(fileURLToPath(new URL(specifier, context.parentURL))) && existsSync(fileURLToPath(ts))) return next(ts.href, context);
  }
  return next(specifier, context);
} });
`;

/** A kosong-like process that, once told "go" on stdin, remembers trust for `count` workspaces named after `name`. */
const child = `const { trustWorkspace } = await import(${JSON.stringify(path.join(repo, "apps/cli/src/hooks/workspace-trust.ts"))});
const [home, name, count] = process.argv.slice(-3);
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
for (let i = 0; i < Number(count); i++) await trustWorkspace(home, "/work/" + name + "-" + i, ${JSON.stringify(offer)});
process.exit(0);
`;

describe("remembering workspace trust from several processes", () => {
  it("keeps every process's answer when they update the store at the same moment", async () => {
    const home = await tempDir();
    const dir = await tempDir();
    await writeFile(path.join(dir, "loader.mjs"), loader);
    await writeFile(path.join(dir, "child.mjs"), child);
    const processes = 6;
    const each = 4;
    const children = Array.from({ length: processes }, (_, n) =>
      spawn(process.execPath, ["--experimental-transform-types", "--no-warnings", "--import", path.join(dir, "loader.mjs"), path.join(dir, "child.mjs"), home, `p${n}`, String(each)], {
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    const stderr = children.map((c) => {
      let text = "";
      c.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      return () => text;
    });
    await Promise.all(children.map((c) => new Promise<void>((resolve) => c.stdout.once("data", () => resolve()))));
    for (const c of children) c.stdin.write("go\n");
    const codes = await Promise.all(children.map((c) => new Promise<number | null>((resolve) => c.once("exit", resolve))));
    expect(codes, stderr.map((s) => s()).join("\n")).toEqual(Array(processes).fill(0));
    const store = JSON.parse(await readFile(trustFile(home), "utf8")) as { workspaces: Record<string, string> };
    expect(Object.keys(store.workspaces)).toHaveLength(processes * each);
    for (let n = 0; n < processes; n++) for (let i = 0; i < each; i++) expect(await isTrusted(home, `/work/p${n}-${i}`, offer)).toBe(true);
  }, 60_000);

  it("takes over a lock left by a process that died holding it", async () => {
    const home = await tempDir();
    const dead = spawn(process.execPath, ["-e", ""]);
    const pid = await new Promise<number>((resolve) => dead.once("exit", () => resolve(dead.pid!)));
    await writeFile(`${trustFile(home)}.lock`, `${JSON.stringify({ pid, hostname: null, startTime: null, nonce: "x" })}\n`);
    await trustWorkspace(home, "/work/after-crash", offer);
    expect(await isTrusted(home, "/work/after-crash", offer)).toBe(true);
  });
});
