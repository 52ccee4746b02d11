/**
 * The floor of a Node agent's one-shot first answer byte: a program that
 * does nothing but what any Node agent on the `openai` SDK must, bundled
 * as the CLI is (one file, Node's compile cache on): start node, import the
 * SDK (which loads Node's fetch), stream one Chat Completions turn from
 * `OPENAI_BASE_URL` and print its text. `codex-side-by-side` runs it in the
 * same rounds as kosong and Codex, so kosong's own share of its first byte
 * is the part above this floor. Its idle twin ({@link buildSdkFloor} with
 * `"idle"`) streams the same turn without printing it, says `ready` and
 * waits: the floor of an idle prompt whose SDK and fetch have run once (as
 * kosong's have, by its first turn's warm-up).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Both floor programs: the compile cache on, the SDK imported, its client made, one streamed Chat Completions turn. */
const turn = (onText: string, after: string) => `
import module from "node:module";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
module.enableCompileCache?.(path.join(os.homedir(), ".cache", "sdk-floor"));
const client = new OpenAI({ maxRetries: 0 });
const stream = await client.chat.completions.create({ model: "bench-model", stream: true, messages: [{ role: "user", content: "hi" }] });
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) ${onText};
}
${after}
`;

/** The floor programs' sources: the turn's text printed, or the turn run silently, then `ready` and an idle wait. */
const sources = {
  turn: turn("process.stdout.write(text)", 'process.stdout.write("\\n");'),
  idle: turn("void text", 'process.stdout.write("ready\\n");\nsetInterval(() => client, 60_000);'),
};

/** Bundles the floor program `kind` to `outDir/sdk-floor-<kind>.mjs` and returns that path. */
export async function buildSdkFloor(outDir: string, kind: keyof typeof sources = "turn"): Promise<string> {
  const outfile = path.join(outDir, `sdk-floor-${kind}.mjs`);
  await build({
    stdin: { contents: sources[kind], resolveDir: path.dirname(fileURLToPath(import.meta.url)), sourcefile: "sdk-floor.mjs", loader: "js" },
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    banner: { js: "import { createRequire as floorCreateRequire } from 'node:module';\nconst require = floorCreateRequire(import.meta.url);" },
    logLevel: "error",
  });
  return outfile;
}
