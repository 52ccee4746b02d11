/** Content-addressed blobs of a file journal: each content stored once (named by its SHA-256), durably. */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";

/** The SHA-256 of `data`, hex. */
export function hashBytes(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A folder of blobs named by the SHA-256 of their content. */
export class BlobStore {
  readonly #dir: string;
  #ready: Promise<void> | null = null;
  /** True when a blob was renamed into the folder since its last fsync. */
  #unsynced = false;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Stores `data` (once: an existing blob is kept) and returns its hash; durable (its name too) after {@link sync}. */
  async put(data: Uint8Array): Promise<string> {
    const hash = hashBytes(data);
    const file = path.join(this.#dir, hash);
    const existing = await stat(file).catch(() => null);
    if (existing?.size === data.byteLength) return hash;
    this.#ready ??= mkdir(this.#dir, { recursive: true }).then(() => undefined);
    await this.#ready;
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    this.#unsynced = true;
    return hash;
  }

  /** Makes the names of the blobs stored since the last call durable (one fsync of the folder). */
  async sync(): Promise<void> {
    if (!this.#unsynced) return;
    this.#unsynced = false;
    const folder = await open(this.#dir, "r");
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  /** The content of blob `hash`; throws when it is missing or damaged. */
  async get(hash: string): Promise<Buffer> {
    const data = await readFile(path.join(this.#dir, hash));
    if (hashBytes(data) !== hash) throw new Error(`the journal's blob ${hash} is damaged`);
    return data;
  }
}
