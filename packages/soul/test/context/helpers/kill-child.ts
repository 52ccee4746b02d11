/**
 * Crash tests' real process deaths: a child script (run on the built
 * package, `import "@kosong/soul"` resolving to dist) is started, and
 * SIGKILLed as soon as it prints its marker line.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../../../", import.meta.url));

/** Runs `test/context/children/<child>` with `args` until it prints `marker` (a line), then SIGKILLs it. */
export async function killWhenReady(child: string, args: readonly string[], marker: string): Promise<void> {
  const proc = spawn(process.execPath, [path.join(packageDir, "test/context/children", child), ...args], { cwd: packageDir });
  let out = "";
  let err = "";
  proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`${marker}\n`)) resolve();
    });
    proc.on("exit", (code) => reject(new Error(`${child} exited (${code}) before "${marker}"; run \`pnpm --filter @kosong/soul build\` first.\n${err}`)));
  });
  proc.kill("SIGKILL");
  await once(proc, "exit");
}
