/**
 * `kosong sessions prune`: removes saved sessions by age (`--older-than`)
 * and count (`--keep`), or with `--dry-run` lists what it would remove;
 * prints one line per session and what was freed.
 */
import { ExitCode, UsageError } from "../cli-error.js";
import { defaultHome } from "../config/settings.js";
import { oneLine, visibleControls } from "../render/visible-controls.js";
import { formatSize } from "./print-sessions.js";
import { storeUrl, withStore } from "./store-sessions.js";
import { parseAge, parseKeep, type PrunedSession, pruneSessions, type RetentionPolicy } from "./session-retention.js";

/** The options of `kosong sessions prune`, as commander parses them. */
export interface PruneOptions {
  olderThan?: string;
  keep?: string;
  dryRun?: boolean;
  /** The global `--store` (else `KOSONG_STORE_URL`). */
  store?: string;
}

/** Runs `kosong sessions prune`; returns the exit code (1 when a selected session was left). */
export async function runPrune(options: PruneOptions, env: NodeJS.ProcessEnv = process.env, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const policy: RetentionPolicy = {
    olderThanMs: options.olderThan === undefined ? null : parseAge(options.olderThan, "--older-than"),
    keep: options.keep === undefined ? null : parseKeep(options.keep, "--keep"),
  };
  if (policy.olderThanMs === null && policy.keep === null) throw new UsageError("sessions prune: give --older-than AGE (e.g. 30d) and/or --keep N.");
  const url = storeUrl(options.store, env);
  const dryRun = options.dryRun ?? false;
  const results = await withStore(url, (store) => pruneSessions(defaultHome(env), policy, { dryRun, store }));
  printPruned(results, dryRun, out);
  return results.some((r) => r.skipped !== null) ? ExitCode.error : ExitCode.ok;
}

/** One line per session (`removed`, `would remove` or `left`), then the total freed. */
export function printPruned(results: readonly PrunedSession[], dryRun: boolean, out: NodeJS.WritableStream): void {
  let freed = 0;
  for (const { session, diskBytes, skipped } of results) {
    const what = oneLine(session.firstPrompt ?? "(no prompt yet)", 60);
    if (skipped === null) freed += diskBytes;
    const verb = skipped !== null ? "left" : dryRun ? "would remove" : "removed";
    out.write(`${verb} ${visibleControls(session.id, { oneLine: true })}  ${formatSize(diskBytes)}  ${what}${skipped === null ? "" : ` (${visibleControls(skipped, { oneLine: true })})`}\n`);
  }
  const count = results.filter((r) => r.skipped === null).length;
  out.write(`${dryRun ? "Would remove" : "Removed"} ${count} ${count === 1 ? "session" : "sessions"}, ${formatSize(freed)}.\n`);
}
