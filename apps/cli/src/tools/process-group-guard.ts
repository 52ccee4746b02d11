/**
 * A guard that ends a command's process group when kosong ends, however it
 * ends: a small `sh` watchdog holds the read end of a pipe whose write end
 * only kosong holds. When kosong exits or is killed (SIGKILL included) the
 * kernel closes the pipe, the watchdog's `read` returns, and it kills the
 * group, so nothing the command started is left orphaned to PID 1. (The
 * sandboxed path has bubblewrap's `--die-with-parent` too; this covers both.)
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

/** A running guard: {@link ProcessGroupGuard.release} stops it once the command is over. */
export interface ProcessGroupGuard {
  /** Stops the watchdog without touching the group (the command is over; what it left in the background stays). */
  release(): void;
}

const watchdog = 'read _ignored; kill -KILL "-$1" 2>/dev/null';

/** Starts a watchdog that kills process group `pgid` when this process ends; it never keeps this process alive. */
export function guardProcessGroup(pgid: number): ProcessGroupGuard {
  const guard = spawn("/bin/sh", ["-c", watchdog, "kosong-shell-guard", String(pgid)], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  guard.on("error", () => undefined);
  guard.stdin?.on("error", () => undefined);
  guard.unref();
  (guard.stdin as Socket | null)?.unref();
  return {
    release: () => {
      guard.kill("SIGKILL");
      guard.stdin?.destroy();
    },
  };
}
