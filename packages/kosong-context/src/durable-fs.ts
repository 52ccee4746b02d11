/**
 * File-system steps for crash-safe replacement of a file: temp files beside
 * the target, fsync of files and directories, range copies (the bulk of a
 * new file with O_DIRECT writes where the disk takes them).
 */
import { constants } from "node:fs";
import { copyFile, open, readdir, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { settle, type Settled } from "./settle.js";

/** True for a Node file-system error with this `code`. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && codes.includes(code);
}

/**
 * Makes the entries of `dir` durable (creations, renames, links). Platforms
 * that cannot open or sync a directory (Windows) are skipped silently.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, "r");
  } catch (error) {
    if (hasCode(error, "EISDIR", "EPERM", "EACCES")) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!hasCode(error, "EINVAL", "EPERM", "EBADF", "ENOTSUP")) throw error;
  } finally {
    await handle.close();
  }
}

let tempCounter = 0;

/** A fresh temp-file path beside `file`: `.<name>.tmp-<pid>-<n>` in the same directory. */
export function tempPathFor(file: string): string {
  tempCounter += 1;
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${tempCounter}`);
}

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Deletes temp files of `file` left behind by an interrupted operation. Call
 * only while holding the file's lock: then no temp file is in use.
 */
export async function removeStaleTempFiles(file: string): Promise<void> {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^\\.${escapeRegExp(path.basename(file))}\\.tmp-\\d+-\\d+$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  for (const name of names) {
    if (!pattern.test(name)) continue;
    try {
      await unlink(path.join(dir, name));
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
    }
  }
}

/** 1 MiB: measured faster than larger buffers (fresh pages, cache misses) and than smaller ones (more calls). */
const COPY_CHUNK = 1024 * 1024;

/**
 * Copies bytes `[start, end)` of `source` to the current position of
 * `target`, reading the next chunk while the previous one is written.
 * `check`, if given, sees each chunk as read (with its offset in `source`)
 * before it is written, and may throw to stop the copy.
 */
async function copyRange(
  source: FileHandle,
  target: FileHandle,
  start: number,
  end: number,
  check?: (chunk: Buffer, position: number) => void,
): Promise<void> {
  if (end <= start) return;
  const size = Math.min(COPY_CHUNK, end - start);
  const memory = Buffer.allocUnsafeSlow(end - start > size ? 2 * size : size);
  const buffers = [memory.subarray(0, size), memory.subarray(memory.length - size)];
  let writing: Promise<void> = Promise.resolve();
  try {
    for (let position = start, i = 0; position < end; i ^= 1) {
      const buffer = buffers[i]!;
      const { bytesRead } = await source.read(buffer, 0, Math.min(size, end - position), position);
      if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position} (expected ${end})`);
      const chunk = buffer.subarray(0, bytesRead);
      check?.(chunk, position);
      // The other buffer is free once its write is done: read into it while this one is written.
      await writing;
      writing = writeAll(target, [chunk]);
      position += bytesRead;
    }
  } catch (error) {
    await writing.catch(() => undefined);
    throw error;
  }
  await writing;
}

const EMPTY = Buffer.alloc(0);
const O_DIRECT: number | undefined = constants.O_DIRECT;

/** What {@link writeNewFileFrom} writes besides the copied range, and its hooks. */
export interface NewFileOptions {
  /** Bytes written before the copied range. */
  head?: Buffer;
  /** Sees each piece of the source as read (with its offset in the source) before it is written; may throw to stop. */
  check?: (chunk: Buffer, position: number) => void;
  /** Called once every byte is written, before the file is synced. */
  written?: () => void;
}

/**
 * Creates `file` (it must not exist) holding `head` followed by bytes
 * `[start, end)` of `source` (none if `source` is null), then flushes it to
 * disk with fdatasync and closes it. fdatasync suffices for a new file: it
 * flushes the data and the metadata needed to read it back (size, allocated
 * blocks); the name is made durable by the caller's sync of the directory.
 *
 * Where the file system takes them, the 4096-byte aligned bulk goes out as
 * O_DIRECT writes (straight to the device: the sync then has only the tail,
 * the size and the device cache left to flush, instead of every page just
 * dirtied), the rest as a buffered write. Otherwise, or if a direct write
 * is refused, the file is written buffered from the start.
 */
export async function writeNewFileFrom(
  file: string,
  source: FileHandle | null,
  start: number,
  end: number,
  options: NewFileOptions = {},
): Promise<void> {
  const { head = EMPTY, check, written } = options;
  if (source === null) end = start;
  const handle = await open(file, "wx");
  try {
    if (!(await copyDirect(file, handle, source, start, end, head, check))) {
      if (head.length > 0) await writeAll(handle, [head]);
      if (source !== null) await copyRange(source, handle, start, end, check);
    }
    written?.();
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Files from this size are copied by {@link copyToNewFile} with direct
 * writes; smaller ones by `copyFile` (an in-kernel copy on Linux), which was
 * faster up to 4 MiB, even at 6 MiB, and slower at 8 MiB (5.5 against
 * 5.0 ms; 10.6 against 8.0 ms at 17 MB).
 */
const COPY_DIRECT_MIN = 8 * 1024 * 1024;

/**
 * Copies the file `source` to `target` (which must not exist) and flushes
 * the copy to disk with fdatasync (see {@link writeNewFileFrom}).
 */
export async function copyToNewFile(source: string, target: string): Promise<void> {
  const handle = await open(source, "r");
  try {
    const info = await handle.stat();
    if (info.size >= COPY_DIRECT_MIN && directMayWork(info.dev)) return await writeNewFileFrom(target, handle, 0, info.size);
  } finally {
    await handle.close();
  }
  await copyFile(source, target, constants.COPYFILE_EXCL);
  const copy = await open(target, "r+");
  try {
    await copy.datasync();
  } finally {
    await copy.close();
  }
}

/** Offsets and lengths of direct writes are multiples of this (the largest logical block size in common use). */
const DIRECT_ALIGN = 4096;
/**
 * The copy reads the next 2 MiB piece into one half of the scratch while the
 * other half is written: measured faster than 1 MiB pieces (in two or four
 * slots), 512 KiB pieces and 4 MiB pieces without overlap.
 */
const DIRECT_PIECE = 2 * 1024 * 1024;
const DIRECT_SLOTS = 2;

/**
 * Package-internal state of the direct copy in {@link writeNewFileFrom}:
 * tests and benchmarks read the counters, switch direct writes off (to take
 * the buffered path) or lower `minBytes` (to take the direct path for small
 * files), and clear `unsupported`.
 */
export const directCopy = {
  /** False: every new file is written buffered. */
  enabled: true,
  /**
   * Files shorter than this are written buffered: measured here, a direct
   * copy is slower up to 256 KiB (its second descriptor and size change cost
   * more than the smaller sync saves), faster from 512 KiB (0.8 against
   * 1.0 ms; 1.1 against 1.5 ms at 1 MiB).
   */
  minBytes: 512 * 1024,
  /** Files written with direct writes. */
  direct: 0,
  /** Files whose direct attempt failed (O_DIRECT open or write refused), written buffered instead. */
  fallbacks: 0,
  /** Devices (st_dev) that refused O_DIRECT in this process: not tried again. */
  unsupported: new Set<number>(),
};

/** False where direct writes are off, unavailable, or were refused on device `dev`. */
function directMayWork(dev: number): boolean {
  return O_DIRECT !== undefined && directCopy.enabled && !directCopy.unsupported.has(dev);
}

/** A direct write the file system refused (EINVAL: O_DIRECT or its alignment not accepted). */
class DirectRefused extends Error {}

// The package's lib (ES2023, no DOM) does not declare WebAssembly.
/** The part of the WebAssembly JS API used here. */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
};

let scratch: Buffer | null | undefined;
let scratchBusy: Promise<void> = Promise.resolve();

/**
 * The direct copy's 4 MiB of page-aligned memory: a WebAssembly memory
 * (V8 maps those page-aligned; Node's Buffers are not aligned) that never
 * grows, so views of it never detach. Null where WebAssembly is missing.
 */
function directScratch(): Buffer | null {
  if (scratch !== undefined) return scratch;
  try {
    const pages = (DIRECT_PIECE * DIRECT_SLOTS) / 65536;
    scratch = Buffer.from(new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer);
  } catch {
    scratch = null;
  }
  return scratch;
}

/** Runs `use` with the scratch once no other copy is using it. */
async function withScratch<T>(use: (scratch: Buffer) => Promise<T>, otherwise: T): Promise<T> {
  const memory = directScratch();
  if (memory === null) return otherwise;
  const before = scratchBusy;
  let release!: () => void;
  scratchBusy = new Promise<void>((resolve) => (release = resolve));
  await before;
  try {
    return await use(memory);
  } finally {
    release();
  }
}

/**
 * Writes `head` + `[start, end)` of `source` into the new, empty file
 * `handle` (at `file`): the aligned bulk through a second descriptor opened
 * with O_DIRECT, the tail through `handle`. False, with the file still
 * empty, when it is not done: too small, no O_DIRECT here, or refused.
 */
async function copyDirect(
  file: string,
  handle: FileHandle,
  source: FileHandle | null,
  start: number,
  end: number,
  head: Buffer,
  check: NewFileOptions["check"],
): Promise<boolean> {
  const length = head.length + end - start;
  const bulk = length - (length % DIRECT_ALIGN);
  if (O_DIRECT === undefined || !directCopy.enabled || length < directCopy.minBytes || bulk === 0) return false;
  const { unsupported } = directCopy;
  if (unsupported.size > 0 && !directMayWork((await handle.stat()).dev)) return false;
  return withScratch(async (memory) => {
    let direct: FileHandle;
    try {
      direct = await open(file, constants.O_WRONLY | O_DIRECT);
    } catch (error) {
      if (hasCode(error, "EINVAL", "ENOTSUP", "EOPNOTSUPP")) unsupported.add((await handle.stat()).dev);
      directCopy.fallbacks += 1;
      return false;
    }
    try {
      // At its final size first, the file is not extended by each direct write (ext4 then updates the
      // size and the orphan list per write): measured ~1 ms faster for 8 MiB. The tail is a hole until written.
      await handle.truncate(length);
      await pipeDirect(memory, direct, source, start, head, length, bulk, check);
    } catch (error) {
      if (!(error instanceof DirectRefused)) throw error;
      unsupported.add((await handle.stat()).dev);
      directCopy.fallbacks += 1;
      await handle.truncate(0);
      return false;
    } finally {
      await direct.close();
    }
    // The tail (< 4096 bytes) is still in the last slot: nothing reused it.
    if (bulk < length) {
      const at = Math.floor(bulk / DIRECT_PIECE) % DIRECT_SLOTS;
      const offset = at * DIRECT_PIECE + (bulk % DIRECT_PIECE);
      await writeAllAt(handle, memory.subarray(offset, offset + length - bulk), bulk);
    }
    directCopy.direct += 1;
    return true;
  }, false);
}

/**
 * The direct copy's loop: fills slot after slot of `memory` with the next
 * piece of head + source, and writes its aligned part with `direct` while
 * the next slots are filled. Every write has settled when it returns or
 * throws.
 */
async function pipeDirect(
  memory: Buffer,
  direct: FileHandle,
  source: FileHandle | null,
  start: number,
  head: Buffer,
  length: number,
  bulk: number,
  check: NewFileOptions["check"],
): Promise<void> {
  const writes: Promise<Settled<void>>[] = [];
  const writeDone = async (slot: number) => {
    const outcome = await writes[slot];
    if (outcome !== undefined && !outcome.ok) throw outcome.error;
  };
  try {
    for (let at = 0, slot = 0; at < length; slot = (slot + 1) % DIRECT_SLOTS) {
      await writeDone(slot);
      const piece = memory.subarray(slot * DIRECT_PIECE, slot * DIRECT_PIECE + Math.min(DIRECT_PIECE, length - at));
      await fill(piece, at, source, start, head, check);
      const aligned = Math.min(piece.length, bulk - at);
      if (aligned > 0) writes[slot] = settle(writeDirectAt(direct, piece.subarray(0, aligned), at));
      at += piece.length;
    }
  } catch (error) {
    await Promise.all(writes);
    throw error;
  }
  for (let slot = 0; slot < DIRECT_SLOTS; slot += 1) await writeDone(slot);
}

/** Fills `piece` with bytes `[at, at + piece.length)` of head + source, then lets `check` see the source part. */
async function fill(
  piece: Buffer,
  at: number,
  source: FileHandle | null,
  start: number,
  head: Buffer,
  check: NewFileOptions["check"],
): Promise<void> {
  const fromHead = at < head.length ? head.copy(piece, 0, at, Math.min(head.length, at + piece.length)) : 0;
  const from = start + at + fromHead - head.length;
  for (let done = fromHead; done < piece.length; ) {
    const position = start + at + done - head.length;
    const { bytesRead } = await source!.read(piece, done, piece.length - done, position);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position}`);
    done += bytesRead;
  }
  if (fromHead < piece.length) check?.(piece.subarray(fromHead), from);
}

async function writeDirectAt(direct: FileHandle, buffer: Buffer, position: number): Promise<void> {
  try {
    await writeAllAt(direct, buffer, position);
  } catch (error) {
    if (hasCode(error, "EINVAL")) throw new DirectRefused("direct write refused", { cause: error });
    throw error;
  }
}

/** Writes all of `buffer` at `position`, retrying short writes. */
async function writeAllAt(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  for (let done = 0; done < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.length - done, position + done);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    done += bytesWritten;
  }
}

/** Writes every byte of `buffers` at the handle's position, retrying short writes. */
export async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  let remaining = 0;
  for (const b of pending) remaining += b.length;
  while (remaining > 0) {
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    remaining -= bytesWritten;
    if (remaining > 0) pending = dropBytes(pending, bytesWritten);
  }
}

function dropBytes(buffers: Buffer[], count: number): Buffer[] {
  let rest = count;
  let i = 0;
  while (i < buffers.length && rest >= buffers[i]!.length) {
    rest -= buffers[i]!.length;
    i += 1;
  }
  const out = buffers.slice(i);
  if (rest > 0 && out.length > 0) out[0] = out[0]!.subarray(rest);
  return out;
}

/** Deletes `file`, ignoring a missing file. */
export async function unlinkQuietly(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
  }
}
