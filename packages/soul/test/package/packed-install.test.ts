/**
 * The four packages as an outside developer gets them: each is packed with
 * `pnpm pack` (workspace:^ ranges resolved, LICENSE inside), the tarballs are
 * installed with npm into scratch projects outside the workspace, one with
 * zod 4 and one with zod 3 (zod is a peer dependency), and each project runs
 * an ES-module agent with zod tools (one through `zod/v4`, one through plain
 * `zod`: zod 3's classic API passes its JSON Schema by hand), loads every
 * package with CommonJS `require()`, and type-checks a typed agent with
 * TypeScript's node16, nodenext and bundler resolution (plus a CommonJS
 * `import = require()` under nodenext).
 *
 * Needs the built packages (`pnpm run build`) and the npm registry or npm's
 * cache (`--prefer-offline`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const soulDir = fileURLToPath(new URL("../../", import.meta.url));
const packagesDir = path.join(soulDir, "..");
const packageDirs = { core: "kosong-core", context: "kosong-context", workspace: "kosong-workspace", soul: "soul" } as const;
const built = Object.values(packageDirs).every((dir) => existsSync(path.join(packagesDir, dir, "dist", "index.js")));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const typesNode = realpathSync(path.join(soulDir, "node_modules", "@types", "node"));
const version = (dir: string): string => (JSON.parse(readFileSync(path.join(packagesDir, dir, "package.json"), "utf8")) as { version: string }).version;

const entries = ["@kosong/core", "@kosong/core/testing", "@kosong/context", "@kosong/context/records", "@kosong/workspace", "@kosong/soul", "@kosong/soul/compaction", "@kosong/soul/tokens", "@kosong/soul/conversation", "@kosong/soul/files", "@kosong/soul/recall"];

/** The ES-module agent: two tools, one scripted turn that calls both. */
const agentSource = `
import { createRequire } from "node:module";
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";
import { z } from "zod/v4";
import { z as zc } from "zod";

const zodMajor = Number(createRequire(import.meta.url)("zod/package.json").version.split(".")[0]);
const add = defineTool({ name: "add", description: "Adds.", parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
// zod 3's classic API has no JSON Schema of its own: the tool passes one.
const jsonSchema = zodMajor === 3 ? { jsonSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } } : {};
const shout = defineTool({ name: "shout", description: "Shouts.", parameters: zc.object({ text: zc.string() }), ...jsonSchema, execute: ({ text }) => text.toUpperCase() });
const call = (id, name, args) => "tool_call: " + JSON.stringify({ id, name, arguments: JSON.stringify(args) });
const provider = new ScriptedChatProvider([call("c1", "add", { a: 2, b: 3 }) + "\\n" + call("c2", "shout", { text: "hi" }), "text: done"]);
const context = new Context(new MemoryContextLog());
await context.restore();
const soul = new Soul({ agent: { name: "scratch", systemPrompt: "You help.", toolset: new SimpleToolset([add, shout]) }, provider, context, config: { maxContextSize: 100000 } });
const turn = soul.run("add and shout");
const events = [];
for await (const event of turn) events.push(event);
const results = Object.fromEntries(events.filter((e) => e.type === "ToolResult").map((e) => [e.payload.tool_call_id, e.payload.return_value.output]));
const calls = events.filter((e) => e.type === "ToolCall").map((e) => e.payload.parsed_arguments);
console.log(JSON.stringify({ zodMajor, stop: (await turn.result).stopReason, results, calls, addSchema: add.definition.parameters, shoutSchema: shout.definition.parameters }));
`;

/** CommonJS: every entry through require(). */
const requireSource = `
const out = {};
for (const entry of ${JSON.stringify(entries)}) out[entry] = Object.keys(require(entry)).length;
console.log(JSON.stringify(out));
`;

/** The typed agent every resolution mode checks; the @ts-expect-error lines fail if the arguments are untyped. */
const typedSource = `
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { askApproval, Context, Soul, type SoulEvent } from "@kosong/soul";
import { z } from "zod/v4";
import { z as zc } from "zod";

export const add = defineTool({
  name: "add",
  description: "Adds.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    // @ts-expect-error a is a number
    const wrong: string = a;
    return String(a + b) + wrong;
  },
});
export const shout = defineTool({
  name: "shout",
  description: "Shouts.",
  parameters: zc.object({ text: zc.string() }),
  jsonSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  async execute({ text }, context) {
    // @ts-expect-error text is a string
    const wrong: number = text;
    const refused = await askApproval(context, "shout", text);
    return refused ?? text.toUpperCase() + String(wrong);
  },
});
export const soul = new Soul({
  agent: { name: "typed", systemPrompt: "s", toolset: new SimpleToolset([add, shout]) },
  provider: new ScriptedChatProvider([]),
  context: new Context(new MemoryContextLog()),
});
export function label(event: SoulEvent): string {
  return event.type === "ToolCall" ? event.payload.function.name : event.type;
}
`;

const cjsTypedSource = `
import soul = require("@kosong/soul");
import core = require("@kosong/core");
export const make: typeof soul.Soul = soul.Soul;
export const message = core.userMessage("hi");
`;

const tsconfigs = {
  node16: { module: "node16", moduleResolution: "node16", files: ["typed.ts"] },
  nodenext: { module: "nodenext", moduleResolution: "nodenext", files: ["typed.ts", "typed-cjs.cts"] },
  bundler: { module: "esnext", moduleResolution: "bundler", files: ["typed.ts"] },
} as const;

interface Packed {
  tarballs: string[];
  manifests: Record<string, { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }>;
  files: Record<string, string[]>;
}

async function pack(into: string): Promise<Packed> {
  const packed: Packed = { tarballs: [], manifests: {}, files: {} };
  for (const dir of Object.values(packageDirs)) {
    await run("pnpm", ["pack", "--pack-destination", into], { cwd: path.join(packagesDir, dir) });
    const tarball = path.join(into, `kosong-${dir.replace(/^kosong-/, "")}-${version(dir)}.tgz`);
    const { stdout: listing } = await run("tar", ["-tzf", tarball]);
    const { stdout: manifest } = await run("tar", ["-xzOf", tarball, "package/package.json"]);
    packed.tarballs.push(tarball);
    packed.files[dir] = listing.split("\n").filter(Boolean);
    packed.manifests[dir] = JSON.parse(manifest) as Packed["manifests"][string];
  }
  return packed;
}

/** A scratch project with the tarballs and `zod`, installed with npm. */
async function scratchProject(root: string, name: string, tarballs: readonly string[], zod: string): Promise<string> {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, `zod@${zod}`], {
    cwd: dir,
    timeout: 90_000,
  });
  mkdirSync(path.join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(typesNode, path.join(dir, "node_modules", "@types", "node"), "dir");
  writeFileSync(path.join(dir, "agent.mjs"), agentSource);
  writeFileSync(path.join(dir, "require.cjs"), requireSource);
  writeFileSync(path.join(dir, "typed.ts"), typedSource);
  writeFileSync(path.join(dir, "typed-cjs.cts"), cjsTypedSource);
  for (const [mode, { files, ...options }] of Object.entries(tsconfigs)) {
    const compilerOptions = { ...options, target: "es2023", lib: ["es2023"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true };
    writeFileSync(path.join(dir, `tsconfig.${mode}.json`), JSON.stringify({ compilerOptions, files }));
  }
  return dir;
}

async function node(dir: string, file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["--no-warnings", file], { cwd: dir });
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function typecheck(dir: string, mode: keyof typeof tsconfigs): Promise<string> {
  try {
    await run(process.execPath, [tsc, "-p", `tsconfig.${mode}.json`], { cwd: dir });
    return "ok";
  } catch (error) {
    return `${mode}: ${String((error as { stdout?: string }).stdout ?? error)}`;
  }
}

describe.skipIf(!built)(built ? "the packed packages, installed with npm outside the workspace" : "packed install (SKIPPED: run `pnpm run build`)", () => {
  let root: string;
  let packed: Packed;
  const projects: Record<"zod3" | "zod4", string> = { zod3: "", zod4: "" };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "kosong-packed-"));
    packed = await pack(root);
    [projects.zod4, projects.zod3] = await Promise.all([
      scratchProject(root, "with-zod4", packed.tarballs, "^4.0.0"),
      scratchProject(root, "with-zod3", packed.tarballs, "^3.25.0"),
    ]);
  }, 180_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("packs LICENSE, README and dist, with workspace:^ resolved to caret ranges and zod as a peer", () => {
    for (const dir of Object.values(packageDirs)) {
      expect(packed.files[dir]).toEqual(expect.arrayContaining(["package/LICENSE", "package/README.md", "package/dist/index.js", "package/package.json"]));
      expect(packed.manifests[dir]!.peerDependencies?.zod ?? "^3.25.0 || ^4.0.0").toBe("^3.25.0 || ^4.0.0");
      expect(JSON.stringify(packed.manifests[dir])).not.toContain("workspace:");
    }
    expect(packed.manifests.soul!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}`, "@kosong/context": `^${version("kosong-context")}`, "@kosong/workspace": `^${version("kosong-workspace")}` });
    expect(packed.manifests["kosong-workspace"]!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}` });
    expect(packed.manifests["kosong-context"]!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}` });
    expect(packed.manifests["kosong-core"]!.peerDependencies?.zod).toBe("^3.25.0 || ^4.0.0");
  });

  it.each(["zod4", "zod3"] as const)("runs an ESM agent with zod tools (%s)", async (project) => {
    const out = await node(projects[project], "agent.mjs");
    expect(out).toMatchObject({ zodMajor: project === "zod4" ? 4 : 3, stop: "no_tool_calls", results: { c1: "5", c2: "HI" }, calls: [{ a: 2, b: 3 }, { text: "hi" }] });
    expect(out.addSchema).toEqual({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(out.shoutSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  });

  it.each(["zod4", "zod3"] as const)("loads every package with CommonJS require() (%s)", async (project) => {
    const out = await node(projects[project], "require.cjs");
    for (const entry of entries) expect([entry, out[entry]]).toEqual([entry, expect.any(Number)]);
  });

  it("type-checks a typed agent with node16, nodenext (also CommonJS) and bundler resolution (zod 4)", async () => {
    const results = await Promise.all((Object.keys(tsconfigs) as Array<keyof typeof tsconfigs>).map((mode) => typecheck(projects.zod4, mode)));
    expect(results).toEqual(["ok", "ok", "ok"]);
  }, 120_000);

  it("type-checks the same agent with zod 3 (nodenext)", async () => {
    expect(await typecheck(projects.zod3, "nodenext")).toBe("ok");
  }, 60_000);
});
