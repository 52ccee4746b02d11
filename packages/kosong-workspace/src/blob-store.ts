/** Content-addressed blobs of a file journal: each content stored once (named by its SHA-256), durably. */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { promisify } from "node:util";
import { open, readFile } from "node:fs/promises";
import path from "node:path";

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
 */
export class BlobStore {
  readonly #dir: string;
  #ready = false;
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
    const file = path.join(this.#dir, hash);
    // The metadata calls are synchronous: on the session's local folder each takes microseconds, its promise tens of them.
    if (statSync(file, { throwIfNoEntry: false })?.size === data.byteLength && hashBytes(readFileSync(file)) === hash) return hash;
    if (!this.#ready) mkdirSync(this.#dir, { recursive: true });
    this.#ready = true;
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
    const folder = openSync(this.#dir, "r");
    try {
      await promisify(fsync)(folder);
    } finally {
      closeSync(folder);
    }
  }

  /** Removes blob `hash` (not durably: one a crash brings back is only unused). */
  remove(hash: string): void {
    rmSync(path.join(this.#dir, hash), { force: true });
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
    const data = await readFile(path.join(this.#dir, hash));
    if (hashBytes(data) !== hash) throw new Error(`the journal's blob ${hash} is damaged`);
    return data;
  }
}
