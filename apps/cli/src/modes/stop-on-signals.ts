/**
 * How the serving modes (`--wire`, `acp`) end: SIGTERM, SIGINT or SIGHUP
 * abort the signal given to the server (which aborts its running turns and
 * closes its sessions), and the exit code becomes 128+n; when the server
 * returns on its own (stdin closed) it is 0. Stdin is released afterwards
 * so the process can exit.
 */
import { ExitCode } from "../cli-error.js";

const signalCodes = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** Runs `serve` until it returns; returns the exit code. */
export async function serveUntilSignal(serve: (signal: AbortSignal) => Promise<void>): Promise<number> {
  const controller = new AbortController();
  let exitCode: number = ExitCode.ok;
  const handlers = Object.entries(signalCodes).map(([signal, code]) => {
    const handler = () => {
      exitCode = code;
      controller.abort();
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  try {
    await serve(controller.signal);
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    process.stdin.destroy();
  }
  return exitCode;
}
