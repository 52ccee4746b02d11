/**
 * Runs the BUILT `kosong` binary (apps/cli/dist/kosong.js) as a child
 * process, with a clean environment: no provider keys from the machine, a
 * temporary HOME and KOSONG_HOME, and one compile cache for every test
 * (outside the temporary HOME, which a run may still be writing its cache
 * into as it exits). Builds the CLI first when dist is missing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeProviderServer, startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** The built binary. */
export const kosongBin = fileURLToPath(new URL("../../dist/kosong.js", import.meta.url));

/** `../shared/fixtures` beside the repository (override with KOSONG_FIXTURES). */
export const fixturesDir = process.env.KOSONG_FIXTURES ?? fileURLToPath(new URL("../../../../../shared/fixtures/", import.meta.url));

/** Builds the CLI (and what it depends on) when its dist is missing. */
export function ensureBuilt(): void {
  if (existsSync(kosongBin)) return;
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  execFileSync("pnpm", ["exec", "turbo", "run", "build", "--filter=@kosong/cli..."], { cwd: root, stdio: "inherit" });
}

/**
 * The built chunks this build loads, by file name, with their code: the
 * entry and every chunk it imports, statically or lazily (a turbo cache
 * restore can leave an older build's chunks beside them in dist).
 */
export async function loadedChunks(): Promise<Map<string, string>> {
  const dist = path.dirname(kosongBin);
  const chunks = new Map<string, string>();
  const names = new Set([path.basename(kosongBin)]);
  for (const name of names) {
    const code = await readFile(path.join(dist, name), "utf8");
    chunks.set(name, code);
    for (const [, imported] of code.matchAll(/(?:from |import\()"\.\/([\w.-]+\.js)"/g)) names.add(imported!);
  }
  return chunks;
}

/** What a run of the binary gave. */
export interface KosongRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runKosong}. */
export interface RunKosongOptions {
  cwd: string;
  /** Variables on top of the clean environment (PATH, HOME, KOSONG_HOME, NO_COLOR). */
  env?: Record<string, string>;
  home: string;
  stdin?: string;
  /** Called with the child once it is running (e.g. to send it a signal). */
  onSpawn?: (child: ChildProcess) => void;
  /** Called for each chunk of stdout. */
  onStdout?: (chunk: string) => void;
}

/** The cache folder (`XDG_CACHE_HOME`) of every test's runs: Node's compile cache of kosong goes there. */
export const testCacheHome = path.join(os.tmpdir(), "kosong-e2e-cache");

/** The clean environment the binary runs with. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KOSONG_HOME: `${home}/.kosong`, XDG_CACHE_HOME: testCacheHome, NO_COLOR: "1", ...extra };
}

/** Runs `kosong args...` to its end. */
export function runKosong(args: string[], options: RunKosongOptions): Promise<KosongRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kosongBin, ...args], { cwd: options.cwd, env: cleanEnv(options.home, options.env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(chunk.toString());
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
    options.onSpawn?.(child);
  });
}

/**
 * For an e2e test file: builds the binary when needed and starts the fake
 * provider server before the tests, resets it before each, closes it after.
 * Read the server as `fake.server` inside tests.
 */
export function useFakeProviderServer(): { server: FakeProviderServer } {
  const fake = {} as { server: FakeProviderServer };
  beforeAll(async () => {
    ensureBuilt();
    fake.server = await startFakeProviderServer();
  }, 300_000);
  afterAll(() => fake.server.close());
  beforeEach(() => fake.server.reset());
  return fake;
}
