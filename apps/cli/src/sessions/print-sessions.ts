/** `kosong sessions`: the saved sessions as a table, most recently used first. */
import { ExitCode } from "../cli-error.js";
import { defaultHome } from "../config/settings.js";
import { redactUrlPasswords } from "@kosong/core";
import stringWidth from "string-width";
import { oneLine, visibleControls } from "../render/visible-controls.js";
import { diskBytesOf, listAllSessions } from "./session-retention.js";
import { removeAbandonedSessions, sessionsDir } from "./session-store.js";
import { type SessionStoreClient, withStore } from "./store-sessions.js";

/**
 * Prints the sessions of `$KOSONG_HOME` to stdout, and with `store` those
 * only the PostgreSQL store holds (directory `(only in PostgreSQL)`, nothing
 * on disk). The folders of sessions killed before their first prompt go
 * first (see `removeAbandonedSessions`).
 */
export async function printSessions(home: string = defaultHome(), out: NodeJS.WritableStream = process.stdout, store: SessionStoreClient | null = null): Promise<number> {
  await removeAbandonedSessions(home);
  const { sessions } = await listAllSessions(home, store);
  if (sessions.length === 0) {
    out.write(`No sessions yet in ${sessionsDir(home)}${store === null ? "" : " or in the store"}.\n`);
    return ExitCode.ok;
  }
  const disk = await Promise.all(sessions.map(diskBytesOf));
  const rows = sessions.map((s, i) => [visibleControls(s.id, { oneLine: true }), visibleControls(s.cwd, { oneLine: true }), formatSize(s.size), formatSize(disk[i]!), formatTime(s.lastUsed), oneLine(s.firstPrompt ?? "(no prompt yet)", 60)]);
  const header = ["ID", "DIRECTORY", "SIZE", "ON DISK", "LAST USED", "FIRST PROMPT"];
  // Columns measured in terminal columns, so a directory with wide characters (CJK, emoji) keeps the rest aligned.
  const widths = header.map((h, i) => Math.max(h.length, ...rows.slice(0, 200).map((row) => stringWidth(row[i]!))));
  const pad = (cell: string, width: number) => cell + " ".repeat(Math.max(0, width - stringWidth(cell)));
  for (const row of [header, ...rows]) out.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : pad(cell, widths[i]!))).join("  ")}\n`);
  return ExitCode.ok;
}

/** How long `kosong sessions` tries to reach a store before listing without it. */
const LISTING_RECONNECT_MS = 1_000;

/**
 * `kosong sessions`: the sessions of `home`, and with a store URL those only
 * the store holds. A store that cannot be reached lists the sessions on disk
 * with a warning (on `err`) rather than nothing.
 */
export async function runSessionsCommand(url: string | undefined, home: string = defaultHome(), out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (url === undefined) return printSessions(home, out);
  let listed = "";
  const buffer = { write: (chunk: string) => ((listed += chunk), true) } as unknown as NodeJS.WritableStream;
  try {
    // A listing waits only briefly for a store that is down: the sessions on disk are shown without it.
    const code = await withStore(url, (store) => printSessions(home, buffer, store), LISTING_RECONNECT_MS);
    out.write(listed);
    return code;
  } catch (error) {
    err.write(`kosong: the PostgreSQL store could not be read (${oneLine(redactUrlPasswords((error as Error).message), 200)}): only the sessions on disk are listed.\n`);
    return printSessions(home, out);
  }
}

/** `bytes` as `512 B`, `1.5 KiB`, `2.0 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

