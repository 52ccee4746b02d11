/** Content-addressed blobs of a file journal: each content stored once (named by its SHA-256), durably. */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fsync, mkdirSync, openSync, lstatSync, readFileSync, renameSync, rmSync } from "node:fs";
import { promisify } from "node:util";
import { open } from "node:fs/promises";
import path from "node:path";
import { procFd } from "./confined-fs.js";

/** The SHA-256 of `data`, hex. */
export function hashBytes(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * A folder of blobs named by the SHA-256 of their content.
 *
 * A blob is written to a temporary file and renamed to its name at once;
 * its content and the folder are made durable by {@link BlobStore.sync},
 * both fsyncs at the same time. A crash before that can leave a name whose
 * content is damaged, which is why every read checks the hash: {@link get}
 * and {@link has} refuse such a blob, and {@link put} writes it again.
 *
 * The folder is opened once, without following a link (a symlink put in its
 * place is refused, not written through), and its entries are reached
 * through that descriptor where the kernel allows (`/proc/self/fd`).
 */
export class BlobStore {
  readonly #dir: string;
  /** The folder's descriptor, once opened. */
  #fd: number | null = null;
  /** True when a blob was renamed into the folder since its last fsync. */
  #unsynced = false;
  /** The fsyncs of the blobs written since the last {@link sync}. */
  #contentSyncs: Promise<void>[] = [];
  /** The last fsync of the folder. */
  #syncing: Promise<void> = Promise.resolve();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Stores `data` (once: a whole existing blob is kept) and returns its hash (`hash` when given: `hashBytes(data)`); durable, name and content, after {@link sync}. */
  async put(data: Uint8Array, hash = hashBytes(data)): Promise<string> {
    const file = `${this.#folder(true)!}/${hash}`;
    // The metadata calls are synchronous: on the session's local folder each takes microseconds, its promise tens of them.
    // A blob is a regular file: anything else under its name (a planted link) is replaced, not read.
    const existing = lstatSync(file, { throwIfNoEntry: false });
    if (existing?.isFile() && existing.size === data.byteLength && hashBytes(readFileSync(file)) === hash) return hash;
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(data);
      renameSync(temporary, file);
    } catch (error) {
      await handle.close();
      rmSync(temporary, { force: true });
      throw error;
    }
    this.#unsynced = true;
    const durable = handle.sync().finally(() => handle.close());
    // Its failure is {@link sync}'s to report (a put is always followed by one), not an unhandled rejection.
    durable.catch(() => undefined);
    this.#contentSyncs.push(durable);
    return hash;
  }

  /** Makes the blobs stored so far durable, content and names (their fsyncs and one of the folder, at once; a call during them waits for them). */
  sync(): Promise<void> {
    const contents = this.#contentSyncs;
    this.#contentSyncs = [];
    if (this.#unsynced) {
      this.#unsynced = false;
      this.#syncing = Promise.all([...contents, this.#syncFolder()]).then(() => undefined);
    } else if (contents.length > 0) {
      this.#syncing = Promise.all([this.#syncing, ...contents]).then(() => undefined);
    }
    return this.#syncing;
  }

  async #syncFolder(): Promise<void> {
    await promisify(fsync)(this.#fd!);
  }

  /**
   * The path through which the folder's entries are reached (its descriptor's
   * under `/proc/self/fd`, else its own), the folder made first when `create`
   * (its parents as needed); null when it does not exist and `create` is false.
   * Throws when it is a symlink or not a folder.
   */
  #folder(create: boolean): string | null {
    if (this.#fd === null) {
      if (create) {
        mkdirSync(path.dirname(this.#dir), { recursive: true });
        try {
          mkdirSync(this.#dir, { mode: 0o700 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
      try {
        this.#fd = openSync(this.#dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" && !create) return null;
        if (code === "ELOOP" || code === "ENOTDIR") throw new Error(`the journal's folder ${this.#dir} is not a folder (a symlink or a file put in its place): refused`, { cause: error });
        throw error;
      }
    }
    return procFd === null ? this.#dir : `${procFd}/${this.#fd}`;
  }

  /** Closes the folder's descriptor (it is opened again when needed). */
  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  /** Removes blob `hash` (not durably: one a crash brings back is only unused). */
  remove(hash: string): void {
    const folder = this.#folder(false);
    if (folder !== null) rmSync(`${folder}/${hash}`, { force: true });
  }

  /** Whether blob `hash` is there, whole (its content is read and hashed). */
  async has(hash: string): Promise<boolean> {
    return this.get(hash).then(
      () => true,
      () => false,
    );
  }

  /** The content of blob `hash`; throws when it is missing or damaged. */
  async get(hash: string): Promise<Buffer> {
    const folder = this.#folder(false);
    if (folder === null) throw Object.assign(new Error(`the journal's blob ${hash} is missing`), { code: "ENOENT" });
    const handle = await open(`${folder}/${hash}`, constants.O_RDONLY | constants.O_NOFOLLOW);
    const data = await handle.readFile().finally(() => handle.close());
    if (hashBytes(data) !== hash) throw new Error(`the journal's blob ${hash} is damaged`);
    return data;
  }
}
