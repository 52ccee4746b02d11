/**
 * Crash tests' real process deaths: a child script (run on the built
 * package, `import "@kosong/soul"` resolving to dist) is started, and
 * SIGKILLed when it prints its marker line (or a given delay after it).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../../../", import.meta.url));

/** A child's run until its SIGKILL: what it printed. */
export interface KilledChild {
  /** Its stdout lines, complete ones only. */
  lines: string[];
}

/**
 * Runs `test/context/children/<child>` (or `test/<child>` when `child` names
 * a folder, as `soul/children/x.ts`) with `args` until it prints `marker`
 * (a line, or the first line it accepts), then, after `options.delayMs`
 * (default 0), SIGKILLs it.
 */
export async function killWhenReady(
  child: string,
  args: readonly string[],
  marker: string | ((line: string) => boolean),
  options: { delayMs?: number } = {},
): Promise<KilledChild> {
  const isMarker = typeof marker === "string" ? (line: string) => line === marker : marker;
  const script = child.includes("/") ? path.join(packageDir, "test", child) : path.join(packageDir, "test/context/children", child);
  const proc = spawn(process.execPath, [script, ...args], { cwd: packageDir });
  const lines: string[] = [];
  let partial = "";
  let err = "";
  proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  // "close": after the last of its output, too.
  const exited = once(proc, "close");
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split("\n");
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (isMarker(line)) resolve();
      }
    });
    proc.on("exit", (code) => reject(new Error(`${child} exited (${code}) before "${String(marker)}"; run \`pnpm --filter @kosong/soul build\` first.\n${err}`)));
  });
  if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
  proc.kill("SIGKILL");
  const [code] = await exited;
  if (code !== null) throw new Error(`${child} exited (${code}) before its SIGKILL:\n${err}`);
  return { lines };
}
