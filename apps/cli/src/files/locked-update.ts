/**
 * A read-modify-write of a small file kosong keeps that several kosong
 * processes may update at the same moment (the trusted workspaces): done
 * under the file's lock (`<file>.lock`, the session files' lock from
 * `@kosong/context`), so each update re-reads what the others wrote and none
 * is lost. A lock left by a dead process is taken over; one held by a live
 * process that has touched neither file nor lock for {@link updateLeaseMs}
 * is taken over too; otherwise the update waits at most
 * {@link maxUpdateWaitMs} for it.
 */
import { SessionLock, SessionLockedError } from "@kosong/context";

/** How long an update waits for another process's lock before giving up. */
export const maxUpdateWaitMs = 10_000;
/** A live holder idle (neither the file nor the lock written) this long loses the lock. */
export const updateLeaseMs = 5_000;

/**
 * Runs `update` while holding `file`'s lock and returns what it returns.
 * @throws SessionLockedError when another live process held the lock for the whole wait.
 */
export async function withFileLock<T>(file: string, update: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + maxUpdateWaitMs;
  let lock: SessionLock;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      lock = await SessionLock.acquire(file, { leaseMs: updateLeaseMs });
      break;
    } catch (error) {
      if (!(error instanceof SessionLockedError) || Date.now() + wait > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + Math.random())));
    }
  }
  try {
    return await update();
  } finally {
    await lock.release();
  }
}
