/**
 * A service bundled with esbuild into one file and run from a folder with no
 * `node_modules` above it: the agent's tool output pushes the context past
 * its window, the soul compacts (PreserveImportantCompaction counts with the
 * o200k_base tokenizer), and the host counts the tokens of the history
 * itself. A tokenizer loaded through a runtime `createRequire` is invisible
 * to the bundler and crashed at the first count.
 *
 * Needs the built packages (`pnpm run build`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const soulDir = fileURLToPath(new URL("../../", import.meta.url));
const built = ["kosong-core", "kosong-context", "soul"].every((dir) => existsSync(path.join(soulDir, "..", dir, "dist", "index.js")));

const agentSource = `
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";
import { estimateTokens, o200kTokenizer } from "@kosong/soul/tokens";
import { z } from "zod";

const big = Array.from({ length: 2000 }, (_, i) => "line " + i + ": value " + i * 7).join("\\n");
const dump = defineTool({ name: "Dump", description: "dumps", parameters: z.object({}), execute: async () => big });
const call = "tool_call: " + JSON.stringify({ id: "c1", name: "Dump", arguments: "{}" });
const context = new Context(new MemoryContextLog());
await context.restore();
const soul = new Soul({
  agent: { name: "bundled", systemPrompt: "You help.", toolset: new SimpleToolset([dump]) },
  provider: new ScriptedChatProvider([call, "text: kept it"]),
  context,
  compactionProvider: null,
  config: { maxContextSize: 4000, reservedContextSize: 500 },
});
const turn = soul.run("Dump it.");
const compactions = [];
for await (const event of turn) if (event.type === "CompactionEnd") compactions.push(event.payload);
await o200kTokenizer.load?.(); // optional chaining: the test also runs against the tokenizer before load() existed
console.log(JSON.stringify({
  stop: (await turn.result).stopReason,
  compactions: compactions.map((c) => ({ before: c.tokens_before, after: c.tokens_after })),
  tokens: estimateTokens(soul.history),
  hello: o200kTokenizer.count("hello world"),
}));
`;

describe.skipIf(!built)(built ? "an agent bundled with esbuild" : "esbuild bundle (SKIPPED: run `pnpm run build`)", () => {
  const root = mkdtempSync(path.join(tmpdir(), "kosong-bundle-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("runs without node_modules, counts tokens and compacts", async () => {
    const outfile = path.join(root, "agent.mjs");
    const result = await build({
      stdin: { contents: agentSource, resolveDir: soulDir, loader: "js" },
      bundle: true,
      platform: "node",
      target: "node22",
      format: "esm",
      outfile,
      logLevel: "silent",
    });
    expect(result.warnings.map((w) => w.text)).toEqual([]);
    // Without NODE_PATH (`pnpm exec` sets one that reaches the workspace's packages).
    const { NODE_PATH: _, ...env } = process.env;
    const { stdout } = await promisify(execFile)(process.execPath, ["--no-warnings", outfile], { cwd: root, env });
    const out = JSON.parse(stdout) as { stop: string; compactions: Array<{ before: number; after: number }>; tokens: number; hello: number };
    expect(out.stop).toBe("no_tool_calls");
    expect(out.compactions).toHaveLength(1);
    expect(out.compactions[0]!.after).toBeLessThan(out.compactions[0]!.before / 10);
    expect(out.hello).toBe(2);
    expect(out.tokens).toBeGreaterThan(0);
  }, 60_000);
});
