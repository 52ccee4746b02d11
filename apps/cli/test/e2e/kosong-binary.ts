/**
 * Runs the BUILT `kosong` binary (apps/cli/dist/kosong.js) as a child
 * process, with a clean environment: no provider keys from the machine, a
 * temporary HOME and KOSONG_HOME. Builds the CLI first when dist is missing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
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

/** The clean environment the binary runs with. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, KOSONG_HOME: `${home}/.kosong`, NO_COLOR: "1", ...extra };
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
 * For a test file: builds the CLI if needed, starts one fake provider server
 * for the file (reset before each test, closed after the file) and returns a
 * getter for it.
 */
export function useFakeProviderServer(): () => FakeProviderServer {
  let server: FakeProviderServer | undefined;
  beforeAll(async () => {
    ensureBuilt();
    server = await startFakeProviderServer();
  }, 300_000);
  afterAll(() => server?.close());
  beforeEach(() => server?.reset());
  return () => server!;
}
