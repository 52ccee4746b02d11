/**
 * The session's record of the files its tools read and wrote, most recent
 * last. Tools report to it through their `ToolContext`; `AutoCompaction`
 * reads it to put recently touched files back into a compacted context.
 */

/** One file the session touched. */
export interface TouchedFile {
  /** The path as the tool resolved it (absolute). */
  path: string;
  /** What happened to it last. */
  kind: "read" | "write";
  /** When, in ms since the epoch. */
  at: number;
}

/** A session-wide registry of touched files. */
export class FileRegistry {
  readonly #files = new Map<string, TouchedFile>();

  /** Records a read of `path`. */
  recordRead(path: string): void {
    this.#touch(path, "read");
  }

  /** Records a write (create, edit) of `path`. */
  recordWrite(path: string): void {
    this.#touch(path, "write");
  }

  /** The touched files, most recently touched first; at most `limit`. */
  recent(limit = Number.POSITIVE_INFINITY): TouchedFile[] {
    return [...this.#files.values()].reverse().slice(0, limit);
  }

  /** Forgets every file. */
  clear(): void {
    this.#files.clear();
  }

  #touch(path: string, kind: TouchedFile["kind"]): void {
    this.#files.delete(path);
    this.#files.set(path, { path, kind, at: Date.now() });
  }
}
