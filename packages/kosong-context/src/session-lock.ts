/**
 * One writer per context file: a lock file `<file>.lock`, created
 * exclusively, holding the owner's pid, hostname and (on Linux) process start
 * time. A lock whose owner is gone (no such pid on this host, or the pid now
 * belongs to a younger process) is stale and taken over.
 */
import { readFileSync, unlinkSync } from "node:fs";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import os from "node:os";
import { SessionLockedError, type LockOwner } from "./errors.js";
import { hasCode, unlinkQuietly } from "./durable-fs.js";

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
  #released = false;

  private constructor(lockPath: string) {
    this.lockPath = lockPath;
  }

  /**
   * Locks `file` (an absolute path) for writing. Throws
   * {@link SessionLockedError} when a live process, or another open handle
   * in this process, holds it.
   */
  static async acquire(file: string): Promise<SessionLock> {
    const lockPath = `${file}.lock`;
    if (held.has(lockPath)) {
      throw new SessionLockedError(file, lockPath, { pid: process.pid, hostname: os.hostname() }, "another open handle in this process");
    }
    const content: LockContent = { pid: process.pid, hostname: os.hostname(), startTime: ownStartTime };
    const text = `${JSON.stringify(content)}\n`;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      try {
        const handle = await open(lockPath, "wx");
        try {
          await handle.writeFile(text);
        } finally {
          await handle.close();
        }
        held.add(lockPath);
        if (!exitHookInstalled) {
          exitHookInstalled = true;
          process.once("exit", releaseAllOnExit);
        }
        return new SessionLock(lockPath);
      } catch (error) {
        if (!hasCode(error, "EEXIST")) throw error;
      }
      await takeOverIfStale(file, lockPath);
    }
    throw new SessionLockedError(file, lockPath, { pid: 0, hostname: null }, "another writer (its lock file kept changing or could not be read)");
  }

  /** Removes the lock file. Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    held.delete(this.lockPath);
    await unlinkQuietly(this.lockPath);
  }
}

/**
 * Throws if the lock at `lockPath` is live; removes it if stale. The stale
 * file is first renamed aside and checked to be the very file that was
 * judged stale, so a lock that another process took over in the meantime is
 * put back rather than deleted.
 */
async function takeOverIfStale(file: string, lockPath: string): Promise<void> {
  let text: string;
  let ino: number;
  try {
    text = await readFile(lockPath, "utf8");
    ino = (await stat(lockPath)).ino;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  const owner = parseLock(text);
  if (owner === null) {
    // Torn or foreign content: an owner that died while writing it, or one still writing.
    const age = Date.now() - (await stat(lockPath).then((s) => s.mtimeMs, () => 0));
    if (age < 2000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return;
    }
  } else if (owner.pid === process.pid ? owner.startTime === ownStartTime : isAlive(owner)) {
    const where = owner.hostname !== null && owner.hostname !== os.hostname() ? ` on ${owner.hostname}` : "";
    throw new SessionLockedError(file, lockPath, { pid: owner.pid, hostname: owner.hostname }, `process ${owner.pid}${where}`);
  }
  const aside = `${lockPath}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  try {
    if ((await stat(aside)).ino !== ino) {
      // Not the stale lock any more: put the new owner's lock back.
      try {
        await link(aside, lockPath);
      } catch (error) {
        if (!hasCode(error, "EEXIST")) throw error;
      }
    }
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}
