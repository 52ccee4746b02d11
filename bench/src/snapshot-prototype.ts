/**
 * A V8 start-up snapshot of the CLI, built for measurement only (issue 33):
 * `bench/snapshot/entry.ts` and what it imports (the CLI's sources and
 * their dependencies, as the product's tsup build bundles them, the same
 * packages left out) bundled by esbuild to one CommonJS file, with
 * `bench/snapshot/banner.js` in front, then `node --snapshot-blob BLOB
 * --build-snapshot BUNDLE` run on this Node. Start it as
 * `node --snapshot-blob BLOB BUNDLE args...`.
 */
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { repoRoot } from "./cli-process.ts";

/** A built snapshot. */
export interface SnapshotPrototype {
  /** The one-file CommonJS bundle (the blob's functions refer to it for their source positions). */
  bundle: string;
  /** The snapshot blob (runs only on the Node binary that built it). */
  blob: string;
  bundleBytes: number;
  blobBytes: number;
  /** Milliseconds `node --build-snapshot` took. */
  buildMs: number;
  /** What module evaluation read from the process while the snapshot built (frozen into it). */
  buildTimeReads: string;
}

/** Packages the product's bundle leaves out (apps/cli/tsup.config.ts), left out here too. */
const leftOut = ["sharp", "pg", "pg-native", "@kosong/context-postgres", "@kosong/mcp", "@modelcontextprotocol/sdk", "gpt-tokenizer"];

/** Built-ins Node does not list as supported in a user snapshot: loaded on first use (see banner.js). */
const deferredBuiltins = ["child_process", "http", "https", "http2", "readline", "readline/promises", "perf_hooks", "worker_threads", "net", "tls", "dns", "dgram", "inspector", "async_hooks", "diagnostics_channel"];

/** Builds the bundle and the snapshot blob into `outDir`. */
export async function buildSnapshotPrototype(outDir: string, options: { minify?: boolean } = {}): Promise<SnapshotPrototype> {
  const here = path.join(repoRoot, "bench", "snapshot");
  const bundle = path.join(outDir, "kosong-snapshot.cjs");
  const blob = path.join(outDir, "kosong.blob");
  const names = Object.fromEntries(deferredBuiltins.map((id) => [id, Object.getOwnPropertyNames(process.getBuiltinModule(id))]));
  // A file in apps/cli: the packages left out of the bundle resolve from there, as they do for the CLI.
  const resolveFrom = JSON.stringify(path.join(repoRoot, "apps", "cli", "package.json"));
  const banner = readFileSync(path.join(here, "banner.js"), "utf8").replace("__KOSONG_DEFERRED_BUILTINS__", JSON.stringify(names)).replace("__KOSONG_RESOLVE_FROM__", resolveFrom);
  await build({
    entryPoints: [path.join(here, "entry.ts")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    // `import()` of a package left out becomes a require: a snapshot's script has no dynamic-import host.
    supported: { "dynamic-import": false },
    external: leftOut.flatMap((name) => [name, `${name}/*`]),
    nodePaths: [path.join(repoRoot, "apps", "cli", "node_modules")],
    define: { "import.meta.url": "__kosongMetaUrl", __KOSONG_RESOLVE_FROM__: resolveFrom },
    banner: { js: banner },
    minify: options.minify ?? false,
    logLevel: "error",
  });
  const start = performance.now();
  const stderr = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", bundle], { cwd: outDir, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, errText) =>
      error ? reject(new Error(`node --build-snapshot failed: ${errText.slice(-2000)}`)) : resolve(errText),
    ),
  );
  const buildMs = performance.now() - start;
  const buildTimeReads = /\[snapshot build\] read while loading: (.*)/.exec(stderr)?.[1] ?? "";
  return { bundle, blob, bundleBytes: statSync(bundle).size, blobBytes: statSync(blob).size, buildMs, buildTimeReads };
}
