/**
 * The config's `session_retention`, applied when kosong starts: the old
 * sessions go before the session opens, never the one being opened
 * (`--continue`'s, `--resume`'s, `--session`'s), and stderr says what went.
 */
import type { ChoiceOrPick } from "../modes/interactive/session-picker.js";
import type { Settings } from "../config/settings.js";
import { formatSize } from "./print-sessions.js";
import { withStore } from "./store-sessions.js";
import { pruneSessions } from "./session-retention.js";
import { listSessions } from "./session-store.js";

/** Prunes the sessions of `settings.home` by `settings.sessionRetention`, sparing what `choice` opens in `cwd`. */
export async function applySessionRetention(settings: Settings, choice: ChoiceOrPick, cwd: string, err: NodeJS.WritableStream = process.stderr): Promise<void> {
  const policy = settings.sessionRetention;
  if (policy === null) return;
  const spare = await sparedIds(settings.home, choice, cwd);
  const results = await withStore(settings.store ?? undefined, (store) => pruneSessions(settings.home, policy, { dryRun: false, spare, store, storeOnly: false }));
  const removed = results.filter((r) => r.skipped === null);
  if (removed.length === 0) return;
  const bytes = removed.reduce((sum, r) => sum + r.diskBytes, 0);
  err.write(`kosong: session_retention removed ${removed.length} old ${removed.length === 1 ? "session" : "sessions"} (${formatSize(bytes)}).\n`);
}

async function sparedIds(home: string, choice: ChoiceOrPick, cwd: string): Promise<Set<string>> {
  if (choice.kind === "new" || choice.kind === "resume-file" || choice.kind === "pick") return new Set();
  if (choice.kind === "session" || choice.kind === "load") return new Set([choice.id]);
  const sessions = await listSessions(home);
  if (choice.kind === "resume") return new Set(sessions.filter((s) => s.id.startsWith(choice.id)).map((s) => s.id));
  const latest = sessions.find((s) => s.cwd === cwd);
  return new Set(latest ? [latest.id] : []);
}
