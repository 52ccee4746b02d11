/**
 * One writer per context file: a lock file `<file>.lock`, created
 * exclusively, holding the owner's pid, hostname and (on Linux) process start
 * time, and a nonce. A lock whose owner is gone (no such pid on this host, or
 * the pid now belongs to a younger process), or, with a lease, whose owner
 * has written neither the file nor the lock for longer than the lease, is
 * stale and taken over, atomically among the processes that find it so.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, readFile, rename, stat, type FileHandle } from "node:fs/promises";
import os from "node:os";
import { SessionLockedError, type LockOwner } from "./errors.js";
import { createFileWithMode, hasCode, PRIVATE_FILE_MODE, unlinkQuietly } from "./durable-fs.js";

interface LockContent extends LockOwner {
  /** Process start time in clock ticks since boot (Linux `/proc/<pid>/stat` field 22). */
  startTime: string | null;
}

/** Lock files held by this process, released on exit if not released before. */
const held = new Set<string>();
let exitHookInstalled = false;

function releaseAllOnExit(): void {
  for (const lockPath of held) {
    try {
      unlinkSync(lockPath);
    } catch {
      // Best effort: a lock left behind is stale and taken over next time.
    }
  }
  held.clear();
}

function processStartTime(pid: number): string | null {
  if (process.platform !== "linux") return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

const ownStartTime = processStartTime(process.pid);

function isAlive(owner: LockContent): boolean {
  if (owner.hostname !== null && owner.hostname !== os.hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return hasCode(error, "EPERM");
  }
  if (owner.startTime !== null) {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.startTime) return false;
  }
  return true;
}

function parseLock(text: string): LockContent | null {
  try {
    const value = JSON.parse(text) as Partial<Record<keyof LockContent, unknown>>;
    if (typeof value.pid !== "number" || !Number.isSafeInteger(value.pid) || value.pid <= 0) return null;
    return {
      pid: value.pid,
      hostname: typeof value.hostname === "string" ? value.hostname : null,
      startTime: typeof value.startTime === "string" ? value.startTime : null,
    };
  } catch {
    const pid = Number(text.trim());
    return Number.isSafeInteger(pid) && pid > 0 ? { pid, hostname: null, startTime: null } : null;
  }
}

/** A held lock on a context file. */
export class SessionLock {
  readonly lockPath: string;
  readonly #text: string;
  #released = false;

  private constructor(lockPath: string, text: string) {
    this.lockPath = lockPath;
    this.#text = text;
  }

  /**
   * Locks `file` (an absolute path) for writing by creating `<file>.lock`.
   * A lock whose owner is gone is taken over.
   * @param options.leaseMs With it, a lock whose live owner has written
   *   neither `file` nor the lock for longer than this many milliseconds is
   *   taken over too (default: never).
   * @throws SessionLockedError when a live process, or another open handle
   *   in this process, holds it (a caller that wants to wait retries).
   * @throws RangeError when `leaseMs` is not a positive number.
   * @throws The file system's error when the lock cannot be made or read
   *   (`EACCES`, `EROFS`, `ENOENT` for a missing folder).
   */
  static async acquire(file: string, options: { leaseMs?: number | undefined } = {}): Promise<SessionLock> {
    const leaseMs = options.leaseMs ?? Number.POSITIVE_INFINITY;
    if (!(leaseMs > 0)) throw new RangeError(`leaseMs must be a positive number of milliseconds, got ${leaseMs}`);
    const lockPath = `${file}.lock`;
    if (held.has(lockPath)) {
      throw new SessionLockedError(file, lockPath, { pid: process.pid, hostname: os.hostname() }, "another open handle in this process");
    }
    const content: LockContent & { nonce: string } = { pid: process.pid, hostname: os.hostname(), startTime: ownStartTime, nonce: randomUUID() };
    const text = `${JSON.stringify(content)}\n`;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await createExclusive(lockPath, text)) {
        held.add(lockPath);
        if (!exitHookInstalled) {
          exitHookInstalled = true;
          process.once("exit", releaseAllOnExit);
        }
        return new SessionLock(lockPath, text);
      }
      await takeOverIfStale(file, lockPath, text, leaseMs);
    }
    throw new SessionLockedError(file, lockPath, { pid: 0, hostname: null }, "another writer (its lock file kept changing or could not be read)");
  }

  /** Removes the lock file if it is still this one's (another writer may have taken it over after the lease). Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    held.delete(this.lockPath);
    if ((await readText(this.lockPath).catch(() => null)) === this.#text) await unlinkQuietly(this.lockPath);
  }
}

/** The text of `file`, null if it does not exist. */
async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return null;
    throw error;
  }
}

/**
 * Creates `file` (owner-only) holding `text` if it does not exist; false if
 * it does. When the write fails (a full disk), the file is removed again
 * while it is still the one created here: left empty, it would read as a
 * lock still being written, and hold off the next writer for 2 s.
 */
async function createExclusive(file: string, text: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await createFileWithMode(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if (hasCode(error, "EEXIST")) return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } catch (error) {
    const [own, named] = await Promise.all([handle.stat(), stat(file).catch(() => null)]);
    if (named !== null && named.dev === own.dev && named.ino === own.ino) await unlinkQuietly(file);
    throw error;
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * Whether the lock text `text` at `lockPath` is held: `"live"` (a live
 * owner), `"stale"` (a dead one), or `"unknown"` (torn or foreign content
 * younger than 2 s: an owner still writing it, or one that died while
 * writing it).
 */
async function judge(lockPath: string, text: string, file: string | null = null, leaseMs = Number.POSITIVE_INFINITY): Promise<{ verdict: "live" | "stale" | "unknown"; owner: LockContent | null }> {
  const owner = parseLock(text);
  if (owner === null) {
    const age = Date.now() - (await stat(lockPath).then((s) => s.mtimeMs, () => 0));
    return { verdict: age < 2000 ? "unknown" : "stale", owner };
  }
  const live = owner.pid === process.pid ? owner.startTime === ownStartTime : isAlive(owner);
  if (live && file !== null && Number.isFinite(leaseMs) && (await idleFor(file, lockPath)) > leaseMs) return { verdict: "stale", owner };
  return { verdict: live ? "live" : "stale", owner };
}

/** How long (ms) neither `file` nor its lock was written. */
async function idleFor(file: string, lockPath: string): Promise<number> {
  const mtimes = await Promise.all([file, lockPath].map((p) => stat(p).then((s) => s.mtimeMs, () => 0)));
  return Date.now() - Math.max(...mtimes);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Throws if the lock at `lockPath` is live; removes it if stale, so that the
 * caller's next exclusive create can take it. The removal is atomic among
 * processes: only the holder of the claim `<lock>.takeover` (created
 * exclusively) removes a lock, and only while it still holds the very text
 * judged stale (every lock text carries a fresh nonce). Two processes that
 * find the same dead lock at the same instant therefore never both remove
 * it, nor remove the lock that one of them made in its place.
 */
async function takeOverIfStale(file: string, lockPath: string, own: string, leaseMs: number): Promise<void> {
  const text = await readText(lockPath);
  if (text === null) return;
  const { verdict, owner } = await judge(lockPath, text, file, leaseMs);
  if (verdict === "live") {
    const where = owner!.hostname !== null && owner!.hostname !== os.hostname() ? ` on ${owner!.hostname}` : "";
    const lease = Number.isFinite(leaseMs) ? `; it can be taken over once idle for ${leaseMs} ms` : "";
    throw new SessionLockedError(file, lockPath, { pid: owner!.pid, hostname: owner!.hostname }, `process ${owner!.pid}${where}`, `lock file ${lockPath}${lease}`);
  }
  if (verdict === "unknown") return void (await pause(50));
  const claim = `${lockPath}.takeover`;
  if (!(await createExclusive(claim, own))) return clearDeadClaim(claim);
  try {
    if ((await readText(lockPath)) === text) await unlinkQuietly(lockPath);
  } finally {
    await unlinkQuietly(claim);
  }
}

/**
 * Another process holds the takeover claim: waits briefly for it, or, if
 * that process died during its takeover, removes its claim (renamed aside
 * first and compared, so a claim made meanwhile is put back).
 */
async function clearDeadClaim(claim: string): Promise<void> {
  const text = await readText(claim);
  if (text === null) return;
  if ((await judge(claim, text)).verdict !== "stale") return void (await pause(5));
  const aside = `${claim}.stale-${process.pid}-${randomUUID()}`;
  try {
    await rename(claim, aside);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  try {
    if ((await readText(aside)) !== text) {
      try {
        await link(aside, claim);
      } catch (error) {
        if (!hasCode(error, "EEXIST")) throw error;
      }
    }
  } finally {
    await unlinkQuietly(aside);
  }
}
