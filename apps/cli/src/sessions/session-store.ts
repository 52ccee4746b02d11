/**
 * Sessions on disk: `$KOSONG_HOME/sessions/<id>/` holds the conversation,
 * `context.jsonl` (kimi-cli's format, with its rotations `context_N.jsonl`),
 * and `session.json` (the working directory, the first prompt, when it
 * started, the compaction strategy last chosen with `/strategy`), and
 * `checkpoint-times.jsonl` (see `checkpoint-times.ts`). The
 * folder is private to the user (0700) and its files 0600: conversations
 * can hold secrets the user typed. API keys are never written.
 */
import { randomBytes } from "node:crypto";
import { chmod, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { JsonlSessionStore } from "@kosong/context";
import { decodeRecordLine } from "@kosong/context/records";
import { lazySchema } from "@kosong/core";
import * as z from "zod";
import { CliError } from "../cli-error.js";
import { type CompactionName, compactionNames } from "../config/setting-values.js";
import { readCappedFile } from "../files/read-capped-file.js";
import { replaceFile } from "../files/replace-file.js";
import { visibleControls } from "../render/visible-controls.js";
import { makeFolders } from "./make-folders.js";
import { unwritableFolderError } from "./unwritable-folder.js";

/** A session's folder and metadata. */
export interface SessionInfo {
  id: string;
  /** The session folder. */
  dir: string;
  /** The conversation file. */
  contextFile: string;
  /** The working directory the session ran in. */
  cwd: string;
  /** The first prompt, or null before one was given. */
  firstPrompt: string | null;
  createdAt: string;
  /** The strategy last chosen with `/strategy`, or null. */
  compaction: CompactionName | null;
  /** With `--store`: the conversation's size in the database when the session was last closed (bytes), else null. */
  storedSize: number | null;
}

/** A listed session with what `kosong sessions` shows. */
export interface ListedSession extends SessionInfo {
  /** True for a session only a PostgreSQL store holds (no folder here: `dir` and `contextFile` are empty). */
  onlyInStore?: true;
  /** Bytes of the conversation: its file, or with `--store` its size in the database when last closed. */
  size: number;
  /** When the conversation last changed (ms since the epoch). */
  lastUsed: number;
}

const metadataSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    cwd: z.string(),
    first_prompt: z.string().nullable().default(null),
    created_at: z.string(),
    // A name this version does not know (written by a later one) is ignored, not a broken session.
    compaction: z.enum(compactionNames).nullable().default(null).catch(null),
    stored_size: z.number().int().nonnegative().nullable().default(null).catch(null),
  }),
);

/** The folder holding all sessions under `home`. */
export function sessionsDir(home: string): string {
  return path.join(home, "sessions");
}

/** A new, sortable session id: `YYYYMMDD-HHMMSS-xxxx`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

/** Creates a session for `cwd` (folder 0700, files 0600), with a new id or the one given. */
export async function createSession(home: string, cwd: string, now: Date = new Date(), id: string = newSessionId(now)): Promise<SessionInfo> {
  const dir = path.join(sessionsDir(home), id);
  try {
    await makeFolders(dir, 0o700);
  } catch (error) {
    throw (await unwritableFolderError(error, dir, `KOSONG_HOME (${home})`)) ?? error;
  }
  await chmod(dir, 0o700);
  const info: SessionInfo = { id, dir, contextFile: path.join(dir, "context.jsonl"), cwd, firstPrompt: null, createdAt: now.toISOString(), compaction: null, storedSize: null };
  await writeFile(info.contextFile, "", { mode: 0o600, flag: "a" });
  // A plain write, not a durable replace: there is no older file to keep, and a session without a prompt
  // has nothing to lose (listings skip it). Each later change, the first prompt first, replaces it durably,
  // off the path to the first request.
  await writeFile(path.join(dir, "session.json"), metadataText(info), { mode: 0o600 });
  return info;
}

/**
 * Records the session's first prompt (once). When the write fails,
 * `info.firstPrompt` is null again (nothing recorded), so that closing the
 * session records it from the history.
 */
export async function recordFirstPrompt(info: SessionInfo, prompt: string): Promise<void> {
  if (info.firstPrompt !== null) return;
  const firstPrompt = prompt.length > 200 ? `${prompt.slice(0, 197)}...` : prompt;
  info.firstPrompt = firstPrompt;
  try {
    await writeMetadata(info);
  } catch (error) {
    if (info.firstPrompt === firstPrompt) info.firstPrompt = null;
    throw error;
  }
}

/**
 * {@link recordFirstPrompt} for writing while the turn runs (the request
 * does not wait for the write, which syncs to disk): never rejects, and
 * resolves to the write's error, or null (also without a session).
 */
export function recordFirstPromptMeanwhile(info: SessionInfo | null, prompt: string): Promise<{ error: unknown } | null> {
  return (info === null ? Promise.resolve() : recordFirstPrompt(info, prompt)).then(
    () => null,
    (error: unknown) => ({ error }),
  );
}

/** The line telling that the first prompt's record failed with `error` (its text made visible on one line). */
export function firstPromptNotRecorded(error: unknown): string {
  return `the session's first prompt was not recorded in session.json: ${visibleControls(error instanceof Error ? error.message : String(error), { oneLine: true })}`;
}

/** Records the strategy chosen with `/strategy`, for when the session is resumed. */
export async function recordCompaction(info: SessionInfo, name: CompactionName): Promise<void> {
  info.compaction = name;
  await writeMetadata(info);
}

/** Records the size of the conversation in the database (`--store`), for listings. */
export async function recordStoredSize(info: SessionInfo, bytes: number): Promise<void> {
  info.storedSize = bytes;
  await writeMetadata(info);
}

/**
 * Every session under `home`, most recently used first. Folders without
 * readable metadata are skipped, and so are sessions that never got a
 * prompt (nothing to resume; see {@link removeAbandonedSessions}).
 */
export async function listSessions(home: string): Promise<ListedSession[]> {
  const { used } = await readSessions(home);
  return used.sort((a, b) => b.lastUsed - a.lastUsed || b.id.localeCompare(a.id));
}

/**
 * Removes the folders of sessions that never got a prompt and that no
 * process holds any more (killed before their first prompt, their
 * conversation's lock left by a process that is gone). One a live process
 * holds, one being made (no lock yet), and those whose ids are in `spare`
 * (the session this process is about to open), are left alone; so is one
 * that got a prompt by the time its lock is taken. Resolves to how many
 * went.
 */
export async function removeAbandonedSessions(home: string, spare: ReadonlySet<string> = new Set()): Promise<number> {
  const { unused } = await readSessions(home);
  const store = new JsonlSessionStore(sessionsDir(home));
  const removed = await Promise.all(
    unused
      .filter((session) => !spare.has(session.id))
      .map(async (session) => {
        if (!(await exists(`${session.contextFile}.lock`))) return false;
        // Judged again under the lock: a process may have taken the session, prompted and let go since.
        const stillUnused = async () => {
          const now = await readSession(session.dir);
          return now !== null && (await isUnused(now));
        };
        return store.deleteSession(path.basename(session.dir), { when: stillUnused }).catch(() => false);
      }),
  );
  return removed.filter(Boolean).length;
}

/** The sessions of `home` with readable metadata: those used, and those that never got a prompt. */
async function readSessions(home: string): Promise<{ used: ListedSession[]; unused: ListedSession[] }> {
  let names: string[];
  try {
    names = await readdir(sessionsDir(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { used: [], unused: [] };
    throw error;
  }
  const sessions = (await Promise.all(names.map((name) => readSession(path.join(sessionsDir(home), name))))).filter((s): s is ListedSession => s !== null);
  const unused = await Promise.all(sessions.map(isUnused));
  return { used: sessions.filter((_, i) => !unused[i]), unused: sessions.filter((_, i) => unused[i]) };
}

/** Bytes of a conversation file read at most to tell whether it holds more than a system prompt (a larger one does). */
const unusedReadBytes = 1024 * 1024;

/**
 * Whether `session` never got a prompt: no first prompt recorded, no size
 * in a store, no rotation, and a conversation file holding nothing but the
 * system prompt (stored while the first prompt is awaited). A torn or
 * damaged line counts as a start of use.
 */
async function isUnused(session: ListedSession): Promise<boolean> {
  if (session.firstPrompt !== null || session.storedSize !== null || session.size > unusedReadBytes) return false;
  if ((await readdir(session.dir).catch(() => [])).some((name) => /^context_\d+\.jsonl$/.test(name))) return false;
  const read = await readCappedFile(session.contextFile, unusedReadBytes);
  if (read.kind !== "read") return false;
  const lines = read.bytes.toString("utf8").split("\n").filter((line) => line.trim() !== "");
  return lines.every((line) => {
    const decoded = decodeRecordLine(line);
    return decoded.ok && decoded.record.kind === "system_prompt";
  });
}

/** The session whose id is `id` or starts with it; a {@link CliError} when none or several match. */
export async function findSession(home: string, id: string): Promise<ListedSession> {
  if (!id.isWellFormed()) throw new CliError(`${JSON.stringify(id)} is not a valid session id (not well-formed Unicode).`);
  const sessions = await listSessions(home);
  const exact = sessions.find((s) => s.id === id);
  if (exact) return exact;
  const matches = sessions.filter((s) => s.id.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError(`No session "${id}" in ${sessionsDir(home)} (see \`kosong sessions\`).`);
  throw new CliError(`"${id}" matches ${matches.length} sessions: ${matches.map((s) => s.id).join(", ")}`);
}

/**
 * The session with exactly the id `id` whose working directory is `cwd`
 * (resolved like the session's own), or null: how a protocol client
 * (ACP's `session/load`) names a session. No prefix matching, no other
 * workspace's session.
 */
export async function exactSession(home: string, cwd: string, id: string): Promise<ListedSession | null> {
  const folder = await realpath(cwd).catch(() => null);
  if (folder === null || !sessionIdPattern.test(id)) return null;
  const session = await readSession(path.join(sessionsDir(home), id));
  return session?.id === id && session.cwd === folder ? session : null;
}

/** An id a client may choose (`--session`): a safe folder name. */
export const sessionIdPattern = /^(?!\.{1,2}$)[\w.-]{1,128}$/;

/** The session `id` (exactly), or a new session of `cwd` with that id (kimi-cli's `--session`). */
export async function openOrCreateSession(home: string, cwd: string, id: string): Promise<SessionInfo> {
  if (!sessionIdPattern.test(id)) throw new CliError(`--session: "${id}" is not a valid session id (letters, digits, ".", "_" and "-", at most 128).`);
  const existing = await readSession(path.join(sessionsDir(home), id));
  return existing ?? createSession(home, cwd, new Date(), id);
}

/** The most recently used session of `cwd`, or a {@link CliError} when it has none. */
export async function latestSession(home: string, cwd: string): Promise<ListedSession> {
  const latest = (await listSessions(home)).find((s) => s.cwd === cwd);
  if (!latest) throw new CliError(`No session to continue in ${cwd} (see \`kosong sessions\`).`);
  return latest;
}

/** Deletes the session's folder (a session that never got a prompt). */
export async function removeSession(info: Pick<SessionInfo, "dir">): Promise<void> {
  await rm(info.dir, { recursive: true, force: true });
}

/** Sets 0600 on every file of the session folder (rotations written by the context log included), 0700 on its folders (`files/`, `agents/`, `jobs/`). */
export async function secureSessionFiles(info: Pick<SessionInfo, "dir">): Promise<void> {
  const entries = await readdir(info.dir, { withFileTypes: true }).catch(() => []);
  await Promise.all(entries.map((entry) => chmod(path.join(info.dir, entry.name), entry.isDirectory() ? 0o700 : 0o600).catch(() => undefined)));
}

/** `session.json`'s text for `info`. */
function metadataText(info: SessionInfo): string {
  const metadata = { id: info.id, cwd: info.cwd, first_prompt: info.firstPrompt, created_at: info.createdAt, compaction: info.compaction, ...(info.storedSize === null ? {} : { stored_size: info.storedSize }) };
  return `${JSON.stringify(metadata, null, 2)}\n`;
}

async function writeMetadata(info: SessionInfo): Promise<void> {
  await replaceFile(path.join(info.dir, "session.json"), metadataText(info));
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}

async function readSession(dir: string): Promise<ListedSession | null> {
  try {
    const metadata = metadataSchema().parse(JSON.parse(await readFile(path.join(dir, "session.json"), "utf8")));
    const contextFile = path.join(dir, "context.jsonl");
    const info = await stat(contextFile);
    // With --store the conversation file stays empty: session.json (rewritten when such a session closes) says when it was used.
    const metadataTime = metadata.stored_size === null ? 0 : (await stat(path.join(dir, "session.json"))).mtimeMs;
    return {
      id: metadata.id,
      dir,
      contextFile,
      cwd: metadata.cwd,
      firstPrompt: metadata.first_prompt,
      createdAt: metadata.created_at,
      compaction: metadata.compaction,
      storedSize: metadata.stored_size,
      size: metadata.stored_size ?? info.size,
      lastUsed: Math.max(info.mtimeMs, metadataTime),
    };
  } catch {
    return null;
  }
}
