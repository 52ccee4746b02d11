import { kosongTsup } from "@kosong/tsup-preset";
import { defineConfig, type Options } from "tsup";
import { fileURLToPath } from "node:url";
import { asciiSource } from "./build/ascii-source.js";
import { prebuiltJsonSchemasPlugin } from "./build/prebuilt-json-schemas.js";

const noZod3JsonSchema = fileURLToPath(new URL("./build/no-zod3-json-schema.ts", import.meta.url));

/**
 * The CLI ships bundled: its own code, the @kosong/* packages and their
 * dependencies in a few files (a chunk per lazily imported part: the SDKs,
 * MCP, ACP, the tokenizer's tables), so a start resolves and reads a
 * handful of files instead of hundreds (interactive start to the prompt
 * about half the time, measured alternating with the unbundled build).
 * Left out, loaded from node_modules when used: sharp (native code), the
 * PostgreSQL store (pg and its optional native client), MCP (@kosong/mcp
 * and its SDK) and the tokenizer's tables (gpt-tokenizer, which
 * @kosong/soul may also load synchronously, by Node's own resolution).
 * Bundled CommonJS modules get a `require` of their own from the banner.
 *
 * Two bundles: the command line (`cli-main.js`, with the compile cache's
 * `compile-cache.js`, and the chunks), and the binary's entry (`kosong.js`)
 * as one file of its own that imports those two when it runs a command.
 * `kosong --version` alone, which the entry answers itself, then loads that
 * one file: in one bundle with the rest, the few modules the entry shares
 * with the command line (the version, the exit codes, the start-up marks)
 * were five chunks of their own, each a file to resolve, read and link
 * (1.17x the CPU time of `node -p 0` against 0.97x, measured alternating).
 */
const base = kosongTsup({
  entry: { "cli-main": "src/cli-main.ts", "compile-cache": "src/compile-cache.ts" },
  dts: false,
  treeshake: false,
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as kosongCreateRequire } from 'node:module';\nconst require = kosongCreateRequire(import.meta.url);" },
});

/** Packages left out of the bundle (with their subpaths). */
const leftOut = ["sharp", "pg", "pg-native", "@kosong/context-postgres", "@kosong/mcp", "@modelcontextprotocol/sdk", "gpt-tokenizer"];
const leftOutPattern = new RegExp(`^(${leftOut.map((name) => name.replace(/[/.-]/g, "\\$&")).join("|")})(/|$)`);

/** The modules of the command line that the entry imports when it runs a command: the command line's bundle has them. */
const commandLine = /^\.\/(cli-main|compile-cache)\.js$/;

// ASCII chunks: one-byte source text in V8's heap, half the size (see build/ascii-source.ts).
const plugins: Options["plugins"] = [{ name: "ascii-source", renderChunk: (code) => ({ code: asciiSource(code) }) }];

export default defineConfig([
  {
    ...base,
    noExternal: [new RegExp(`^(?!${leftOutPattern.source.slice(1)})`)],
    external: [leftOutPattern],
    plugins,
    // No zod 3 in the bundle: the CLI's tool schemas are zod 4 (see build/no-zod3-json-schema.ts).
    // The built-in tools' JSON Schemas are converted here, not at each start (see build/prebuilt-json-schemas.ts).
    esbuildPlugins: [{ name: "no-zod3-json-schema", setup: (build) => void build.onResolve({ filter: /^zod-to-json-schema$/ }, () => ({ path: noZod3JsonSchema })) }, prebuiltJsonSchemasPlugin],
    // The entry's bundle writes kosong.js beside this one at the same time: not removed here.
    clean: ["!kosong.js", "!kosong.js.map"],
  },
  {
    ...kosongTsup({ entry: { kosong: "src/kosong.ts" }, dts: false, treeshake: false, clean: false, splitting: false }),
    banner: { js: "#!/usr/bin/env node" },
    esbuildPlugins: [{ name: "command-line", setup: (build) => build.onResolve({ filter: commandLine }, (args) => ({ path: args.path, external: true })) }],
    plugins,
  },
]);
