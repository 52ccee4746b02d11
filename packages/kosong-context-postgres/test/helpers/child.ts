/** Child processes on the built package (session-child.ts), with their stdout as lines. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { statSync } from "node:fs";
import { readdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../../", import.meta.url));

function newest(dir: string): number {
  return Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? newest(path.join(dir, entry.name)) : statSync(path.join(dir, entry.name)).mtimeMs)));
}

/** Children run the built package: fails loudly when dist is missing or older than src. */
export function assertDistIsFresh(): void {
  let built = 0;
  try {
    built = statSync(path.join(packageDir, "dist/index.js")).mtimeMs;
  } catch {
    // missing: reported below
  }
  if (built < newest(path.join(packageDir, "src"))) {
    throw new Error("@kosong/context-postgres dist is missing or older than src: run `pnpm turbo run build --filter=@kosong/context-postgres` first");
  }
}

export interface Child {
  process: ChildProcessWithoutNullStreams;
  /** Resolves with the next stdout line matching `pattern`. */
  next(pattern: RegExp): Promise<string>;
  send(line: string): void;
  /** Ends stdin and waits for the exit. */
  finish(): Promise<number | null>;
}

export function startChild(args: string[]): Child {
  const child = spawn(process.execPath, [path.join(packageDir, "test/children/session-child.ts"), ...args], { cwd: packageDir });
  const seen: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const waiter = waiters.findIndex((w) => w.pattern.test(line));
    if (waiter >= 0) waiters.splice(waiter, 1)[0]!.resolve(line);
    else seen.push(line);
  });
  return {
    process: child,
    next(pattern) {
      const index = seen.findIndex((line) => pattern.test(line));
      if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then((code) => reject(new Error(`child exited (${code}) before printing ${pattern}: ${stderr}`)));
      });
    },
    send: (line) => void child.stdin.write(`${line}\n`),
    async finish() {
      child.stdin.end();
      return exited;
    },
  };
}
