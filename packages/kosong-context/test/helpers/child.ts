import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../../", import.meta.url));
const script = path.join(packageDir, "test/children/context-child.ts");

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return latest;
}

/**
 * Child processes run the built package. Fails loudly when `dist` is missing
 * or older than `src` (`pnpm test` builds first; otherwise run
 * `pnpm turbo run build --filter=@kosong/context`).
 */
export function assertDistIsFresh(): void {
  const dist = path.join(packageDir, "dist/index.js");
  let built = 0;
  try {
    built = statSync(dist).mtimeMs;
  } catch {
    // missing: reported below
  }
  if (built < newest(path.join(packageDir, "src"))) {
    throw new Error("@kosong/context dist is missing or older than src: run `pnpm turbo run build --filter=@kosong/context` first");
  }
}

/** A running child process and its stdout lines. */
export interface Child {
  process: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  /** Resolves with the first line matching `predicate`. */
  waitFor: (predicate: (line: string) => boolean) => Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Preloaded by {@link startChild} with `noHardLinks`: `link` fails with EPERM, as on file systems without hard links. */
const noHardLinks = path.join(packageDir, "test/children/no-hard-links.ts");

/**
 * Starts `context-child.ts <args>` on the built package; with `noHardLinks`,
 * in a process where hard links fail (so rotations take the copy fallback);
 * with `obeyFileModes`, held to file modes even as root; with `umask` (octal
 * digits), under that umask.
 */
const dacCaps = "-dac_override,-dac_read_search";

export function startChild(args: string[], options: { noHardLinks?: boolean; obeyFileModes?: boolean; umask?: string } = {}): Child {
  const preload = options.noHardLinks ? ["--import", noHardLinks] : [];
  const command = [process.execPath, ...preload, script, ...args];
  // Root reads and writes any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): without them, root is held to the
  // file modes like any user, while it can still run node and the repository from wherever they are installed.
  if (options.obeyFileModes && process.getuid?.() === 0) command.unshift("setpriv", `--inh-caps=${dacCaps}`, `--bounding-set=${dacCaps}`);
  const env = options.umask === undefined ? process.env : { ...process.env, CHILD_UMASK: options.umask };
  const child = spawn(command[0]!, command.slice(1), { cwd: packageDir, env, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let partial = "";
  let errors = "";
  const waiters: Array<{ predicate: (line: string) => boolean; resolve: (line: string) => void }> = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (let i = waiters.length - 1; i >= 0; i -= 1) {
        if (waiters[i]!.predicate(line)) waiters.splice(i, 1)[0]!.resolve(line);
      }
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal }));
    // A child that cannot start (a missing or forbidden program) ends the wait with its reason instead of hanging it.
    child.on("error", (error) => {
      errors += `${error.message}\n`;
      resolve({ code: null, signal: null });
    });
  });
  const waitFor = (predicate: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find(predicate);
      if (found !== undefined) return resolve(found);
      waiters.push({ predicate, resolve });
      void exited.then(({ code, signal }) => reject(new Error(`child exited (${code ?? signal}) before the expected line: ${errors}`)));
    });
  return { process: child, lines, stderr: () => errors, waitFor, exited };
}
