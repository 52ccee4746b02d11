/**
 * Confined file access: every file tool (and the file journal) opens, creates, lists and inspects
 * the workspace's files through these primitives, which cannot be led out of
 * the workspace by `..`, an absolute path, a symlink (dangling ones too), a
 * hard link, or a path swapped for a symlink while they work.
 *
 * How: a path is walked one component at a time from a descriptor of the
 * workspace root. Each folder is opened without following a symlink
 * (`O_DIRECTORY | O_NOFOLLOW`) relative to the descriptor of its parent: on
 * Linux through `/proc/self/fd/N/name`, which the kernel resolves from the
 * open folder as `openat(2)` does, so a folder swapped for a link after it
 * was opened changes nothing. A symlink met on the way is read and its target
 * resolved by the walk itself, then walked again from the root: a link is
 * followed only to a target inside the workspace. The file is opened with
 * `O_NOFOLLOW | O_NONBLOCK` (a FIFO cannot block the open) and never
 * truncated by the open; what was opened is then checked through its
 * descriptor: a regular file (FIFOs, sockets and devices are refused, and
 * already refused by an `lstat` before the open), one name only (a hard link
 * may be a second name of a file outside), and its real path, read from the
 * descriptor, inside the workspace.
 *
 * Elsewhere than Linux (no `/proc/self/fd`), children are opened by their
 * joined path and the final check compares the descriptor's device and inode
 * with the `realpath` of that path: escapes are still refused, but a race on
 * a parent folder can make a file be created before it is refused.
 */
import { closeSync, existsSync, fstatSync, lstatSync, opendirSync, openSync, readlinkSync, realpathSync, statSync, type Dir, type Dirent, type Stats } from "node:fs";
import { constants, type FileHandle, lstat, mkdir, open, readdir, readlink, realpath, rename, stat, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { WorkspaceError } from "./workspace-error.js";
import { isInside, PathEscapeError } from "./path-escape-error.js";

/** The folder the primitives are confined to: `root` is absolute, with its symlinks resolved (`realpath`). */
export interface ConfinedRoot {
  readonly root: string;
}

/** Thrown for a FIFO, socket, device or other file that is not a regular file or folder. */
export class NotRegularFileError extends WorkspaceError {
  static override readonly brand: string = "@kosong/workspace.error.NotRegularFileError";

  constructor(
    readonly requested: string,
    /** What it is instead: "FIFO", "socket", "device". */
    readonly kind: string,
  ) {
    super(`\`${requested}\` is a ${kind}, not a regular file; only regular files can be read or written.`);
  }
}

/** Thrown for a regular file with more than one name (hard links): its other names may be outside the workspace. */
export class HardLinkError extends WorkspaceError {
  static override readonly brand: string = "@kosong/workspace.error.HardLinkError";

  constructor(
    readonly requested: string,
    /** How many names the file has. */
    readonly links: number,
  ) {
    super(`\`${requested}\` has ${links} hard links; a hard-linked file may be a file outside the working directory, so it is not read or written by this tool.`);
  }
}

/** A file of the workspace, open and checked. Close its handle when done. */
export interface ConfinedFile {
  /** The open file: read-only from {@link openForRead}, read-write from {@link openForWrite}. */
  handle: FileHandle;
  /** Its real absolute path (inside the workspace). */
  path: string;
  /** Its status when it was opened (a regular file with one link). */
  stats: Stats;
  /** True when {@link openForWrite} created it. */
  created: boolean;
}

/** Options of {@link openForWrite}. */
export interface WriteOpenOptions {
  /** Open in append mode: every write goes to the end. */
  append?: boolean;
  /** Create the file, and its missing folders, when it does not exist (default true). */
  create?: boolean;
}

/** A folder entry seen by {@link listDirInside}, with its `lstat` (links not followed). */
export interface ListedEntry {
  name: string;
  stats: Stats;
}

/**
 * Opens the regular file `requested` of the workspace for reading. Throws
 * {@link PathEscapeError}, {@link NotRegularFileError}, {@link HardLinkError},
 * or a Node error with `code` (ENOENT, EISDIR, ENOTDIR, EACCES, ELOOP).
 */
export function openForRead(workspace: ConfinedRoot, requested: string, cursor?: FolderCursor): Promise<ConfinedFile> {
  return withParent(workspace, requested, false, cursor, async (dir, names) => {
    const name = fileName(requested, names);
    const where = at(dir, name);
    const before = await lstat(where);
    if (before.isSymbolicLink()) return new FollowLink(await readlink(where));
    refuseUnlessFile(requested, before);
    const handle = await openNoFollow(where, constants.O_RDONLY | constants.O_NONBLOCK);
    if (handle instanceof FollowLink) return handle;
    return checkOpened(workspace, requested, handle, path.join(dir.path, name), false);
  });
}

/**
 * Opens the regular file `requested` of the workspace for reading and
 * writing, creating it (and its folders, one by one and without following
 * links) unless `create` is false. The file is not truncated: read what it
 * held first if needed, then `truncate` and write. Throws as
 * {@link openForRead} does; a file it created and then refused is removed.
 */
export function openForWrite(workspace: ConfinedRoot, requested: string, options: WriteOpenOptions = {}): Promise<ConfinedFile> {
  const create = options.create ?? true;
  const flags = constants.O_RDWR | constants.O_NONBLOCK | (options.append ? constants.O_APPEND : 0);
  return withParent(workspace, requested, create, undefined, async (dir, names) => {
    const name = fileName(requested, names);
    const where = at(dir, name);
    const before = await lstat(where).catch(ignoreMissing);
    if (before?.isSymbolicLink()) return new FollowLink(await readlink(where));
    if (before) refuseUnlessFile(requested, before);
    else if (!create) throw errnoError("ENOENT", requested);
    let handle: FileHandle | FollowLink;
    try {
      handle = await openNoFollow(where, before ? flags : flags | constants.O_CREAT | constants.O_EXCL);
    } catch (error) {
      // Created or removed by someone else since the lstat: look again.
      if (isCode(error, "EEXIST") || isCode(error, "ENOENT")) return new FollowLink(name);
      throw error;
    }
    if (handle instanceof FollowLink) return handle;
    try {
      return await checkOpened(workspace, requested, handle, path.join(dir.path, name), !before);
    } catch (error) {
      if (!before) await unlink(where).catch(() => undefined);
      throw error;
    }
  });
}

/**
 * The `lstat` of `requested` (a symlink as the final component is not
 * followed) and its path inside the workspace. Links of the folders on the
 * way are followed only inside. Throws as {@link openForRead} does.
 */
export function lstatInside(workspace: ConfinedRoot, requested: string, cursor?: FolderCursor): Promise<{ path: string; stats: Stats }> {
  return withParent(workspace, requested, false, cursor, async (dir, names) => {
    if (names.length === 0) return { path: dir.path, stats: await dir.handle.stat() };
    if (names.length > 1) throw errnoError("ENOENT", requested);
    return { path: path.join(dir.path, names[0]!), stats: await lstat(at(dir, names[0]!)) };
  });
}

/**
 * The entries of the folder `requested`, sorted by name, each with its
 * `lstat`. The folder is opened as files are (links followed only inside,
 * its real path checked). Throws as {@link openForRead} does (ENOTDIR for a
 * file).
 */
export function listDirInside(workspace: ConfinedRoot, requested: string): Promise<{ path: string; entries: ListedEntry[] }> {
  return withParent(workspace, requested, false, undefined, async (parent, names) => {
    if (names.length > 1) throw errnoError("ENOENT", requested);
    let dir = parent;
    if (names.length === 1) {
      const opened = await openChildDir(parent, names[0]!, requested);
      if (opened instanceof FollowLink) return opened;
      dir = opened;
    }
    try {
      await checkRealPath(workspace, requested, dir.handle, dir.path);
      const dirents: Dirent[] = await readdir(procFd ? `${procFd}/${dir.handle.fd}` : dir.path, { withFileTypes: true });
      dirents.sort((a, b) => a.name.localeCompare(b.name));
      // An entry removed since the listing is left out.
      const entries = await Promise.all(dirents.map(async (entry) => ({ name: entry.name, stats: await lstat(at(dir, entry.name)).catch(ignoreMissing) })));
      return { path: dir.path, entries: entries.filter((entry): entry is ListedEntry => entry.stats !== null) };
    } finally {
      if (dir !== parent) await dir.handle.close();
    }
  });
}

/**
 * The absolute path of `requested` inside the workspace, with the symlinks
 * on the way resolved (followed only inside it). The file need not exist (a
 * file to create): missing components are kept as named. Throws
 * {@link PathEscapeError} when it is, or leads, outside: through `..`, an
 * absolute path elsewhere, or a symlink (dangling or not, of the file or of
 * any folder on the way).
 */
export function resolveInside(workspace: ConfinedRoot, requested: string): Promise<string> {
  return resolve(workspace, requested, false);
}

/** As {@link resolveInside}, for a file or folder that must exist (ENOENT when it does not). */
export function resolveExisting(workspace: ConfinedRoot, requested: string, cursor?: FolderCursor): Promise<string> {
  return resolve(workspace, requested, true, cursor);
}

function resolve(workspace: ConfinedRoot, requested: string, mustExist: boolean, cursor?: FolderCursor): Promise<string> {
  return withParent(workspace, requested, false, cursor, async (dir, names) => {
    if (names.length > 1 && mustExist) throw errnoError("ENOENT", requested);
    if (names.length !== 1) return path.join(dir.path, ...names);
    const where = at(dir, names[0]!);
    const info = await lstat(where).catch(mustExist ? undefined : ignoreMissing);
    if (info?.isSymbolicLink()) return new FollowLink(await readlink(where));
    return path.join(dir.path, names[0]!);
  });
}

/**
 * The folders of the last walk, kept open so that the next walk of a batch
 * (one Grep or Glob over many files, in order) reuses the folders they share
 * instead of opening them again. Reusing a folder's descriptor is as safe as
 * `openat`: it still names the folder that was checked. Use one cursor for
 * one sequence of calls (never two at once), then {@link FolderCursor.close}.
 */
export class FolderCursor {
  /** The open folders: the root, then one per name of {@link names}. */
  #chain: ConfinedDir[] = [];
  #names: string[] = [];

  /** Closes the folders it holds. */
  async close(): Promise<void> {
    this.#names = [];
    for (const dir of this.#chain.splice(0).reverse()) await dir.handle.close();
  }

  /** Opens `root` when needed, keeps the folders shared with `names` (from the root down), closes the others; returns how many names are kept. */
  async keepCommon(root: string, names: readonly string[]): Promise<number> {
    if (this.#chain[0]?.path !== root) {
      await this.close();
      this.#chain.push({ handle: await open(root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW), path: root });
    }
    let kept = 0;
    while (kept < this.#names.length && kept < names.length && this.#names[kept] === names[kept]) kept++;
    for (const dir of this.#chain.splice(kept + 1).reverse()) await dir.handle.close();
    this.#names.length = kept;
    return kept;
  }

  /** The deepest open folder. */
  get top(): ConfinedDir {
    return this.#chain.at(-1)!;
  }

  /** Adds `dir`, the folder `name` of {@link top}. */
  push(name: string, dir: ConfinedDir): void {
    this.#names.push(name);
    this.#chain.push(dir);
  }
}

/** Reads all of `file` from its start as UTF-8 (abortable with `signal`). */
export async function readWhole(file: ConfinedFile, signal?: AbortSignal): Promise<string> {
  const size = (await file.handle.stat()).size;
  const buffer = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    signal?.throwIfAborted();
    const { bytesRead } = await file.handle.read(buffer, done, Math.min(size - done, 1 << 20), done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.toString("utf8", 0, done);
}

/** Replaces the content of `file` (opened by {@link openForWrite}, not in append mode) with `text`. */
export async function replaceWhole(file: ConfinedFile, text: string): Promise<void> {
  await file.handle.truncate(0);
  await writeAll(file.handle, Buffer.from(text, "utf8"), 0);
}

/** Adds `text` at the end of `file` (opened by {@link openForWrite} with `append`). */
export async function appendText(file: ConfinedFile, text: string): Promise<void> {
  await writeAll(file.handle, Buffer.from(text, "utf8"), null);
}

async function writeAll(handle: FileHandle, data: Buffer, start: number | null): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, start === null ? null : start + done);
    done += bytesWritten;
  }
}

/** What is at a path of the workspace, links not followed: its `lstat`, and a link's target. */
export interface InspectedEntry {
  /** Its absolute path (the folders on the way resolved inside the workspace). */
  path: string;
  /** Its `lstat`, null when nothing is there. */
  stats: Stats | null;
  /** The target of a symlink (never followed), else null. */
  linkTarget: string | null;
}

/**
 * Looks at `requested` without following it when it is a symlink (folders on
 * the way are followed only inside). A missing file (or folder on the way)
 * gives `stats: null`. Throws {@link PathEscapeError} for a path outside.
 */
export function inspectInside(workspace: ConfinedRoot, requested: string): Promise<InspectedEntry> {
  return inspect(workspace, requested, -1).then(({ entry }) => entry);
}

/**
 * As {@link inspectInside}, in the same walk reading the content of a
 * regular file of at most `maxBytes` (checked as {@link openForRead} checks:
 * one name only), with its status as opened; `content` is null for anything
 * else. Throws as {@link openForRead} does for a file that cannot be read.
 */
export function inspectAndReadInside(workspace: ConfinedRoot, requested: string, maxBytes: number): Promise<InspectedEntry & { content: { data: Buffer; stats: Stats } | null }> {
  return inspect(workspace, requested, maxBytes).then(({ entry, content }) => ({ ...entry, content }));
}

function inspect(workspace: ConfinedRoot, requested: string, maxBytes: number): Promise<{ entry: InspectedEntry; content: { data: Buffer; stats: Stats } | null }> {
  return withParent(workspace, requested, false, undefined, async (dir, names) => {
    if (names.length === 0) return { entry: { path: dir.path, stats: await dir.handle.stat(), linkTarget: null }, content: null };
    const where = path.join(dir.path, ...names);
    if (names.length > 1) return { entry: { path: where, stats: null, linkTarget: null }, content: null };
    const stats = await lstat(at(dir, names[0]!)).catch(ignoreMissing);
    const linkTarget = stats?.isSymbolicLink() ? await readlink(at(dir, names[0]!)) : null;
    const entry = { path: where, stats, linkTarget };
    if (!stats?.isFile() || stats.size > maxBytes) return { entry, content: null };
    const handle = await openNoFollow(at(dir, names[0]!), constants.O_RDONLY | constants.O_NONBLOCK);
    if (handle instanceof FollowLink) return handle;
    return { entry, content: await readOpened(workspace, requested, handle, where, maxBytes) };
  });
}

/** Reads all of `file` from its start as bytes. */
export async function readBytes(file: ConfinedFile): Promise<Buffer> {
  const size = (await file.handle.stat()).size;
  const buffer = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await file.handle.read(buffer, done, size - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

/** What {@link replaceAtomically} puts at a path. */
export type ReplacementEntry = { kind: "file"; data: Uint8Array; mode: number } | { kind: "link"; target: string } | { kind: "missing" };

/**
 * Puts `entry` at `requested` in one step: a file or a symlink is made under
 * a temporary name in the same folder (created with `O_EXCL | O_NOFOLLOW`,
 * written, its mode set, fsynced), then renamed over the name, and the folder
 * fsynced; a crash leaves the old entry or the new one, never a mix. The
 * rename replaces a symlink itself, never what it points to. `missing`
 * removes the entry (a folder is left alone: EISDIR). The temporary is
 * named `.<name>.kosong-tmp`: one a crash left behind is replaced by the next
 * replace of the same file. Missing folders on the way are created; links of folders are followed only inside. Returns the
 * entry's absolute path.
 */
export function replaceAtomically(workspace: ConfinedRoot, requested: string, entry: ReplacementEntry): Promise<string> {
  return withParent(workspace, requested, entry.kind !== "missing", undefined, async (dir, names) => {
    if (names.length === 0) throw errnoError("EISDIR", requested);
    const where = path.join(dir.path, ...names);
    if (names.length > 1) return where; // Only for "missing": a folder on the way is already gone.
    const name = names[0]!;
    const current = await lstat(at(dir, name)).catch(ignoreMissing);
    if (current?.isDirectory()) throw errnoError("EISDIR", requested);
    if (entry.kind === "missing") {
      if (current) await unlink(at(dir, name)).catch(ignoreMissing);
    } else {
      // One name per file: what a crash left under it is removed and made again.
      const temporary = `.${name}.kosong-tmp`;
      await unlink(at(dir, temporary)).catch(ignoreMissing);
      try {
        if (entry.kind === "link") {
          await symlink(entry.target, at(dir, temporary));
        } else {
          const handle = await open(at(dir, temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
          try {
            await writeAll(handle, Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength), 0);
            await handle.chmod(entry.mode & 0o7777);
            await handle.sync();
          } finally {
            await handle.close();
          }
        }
        await rename(at(dir, temporary), at(dir, name));
      } catch (error) {
        await unlink(at(dir, temporary)).catch(() => undefined);
        throw error;
      }
    }
    await dir.handle.sync();
    return where;
  });
}

/** An entry of a folder met by {@link walkInside}. */
export interface WalkedEntry {
  name: string;
  /** Its `lstat` (links not followed); for a folder, null (folders are not stat'ed). */
  stats: Stats | null;
}

/** A folder met by {@link walkInside}. */
export interface WalkedFolder {
  /** Its path relative to the root, `/`-separated; "" for the root. */
  key: string;
  /** Its entries, in the folder's order (an entry removed while it was listed is left out). */
  entries: WalkedEntry[];
  /**
   * Reads the entry `name` of this folder, opened through the folder's
   * descriptor with `O_NOFOLLOW | O_NONBLOCK` and checked as {@link openForRead}
   * checks (a regular file with one name): its first `maxBytes` bytes, and
   * its status as opened (which may differ from the entry's if it changed
   * since the listing). Throws as {@link openForRead} does (ELOOP for a link).
   */
  read(name: string, maxBytes: number): Promise<{ data: Buffer; stats: Stats }>;
  /** The target of the symlink `name` of this folder (never followed). */
  readLink(name: string): string;
}

/**
 * Walks the workspace's tree, depth first, through folder descriptors: each
 * folder is opened with `O_DIRECTORY | O_NOFOLLOW` through the descriptor of
 * its parent and its real path checked inside the workspace (a folder moved
 * out meanwhile is left out, with what is under it), so a link is listed but
 * never followed, and a folder reached through one is never entered.
 * `visit` sees each folder and returns the names of the entries to enter
 * (those that are folders are entered, in that order), or null to stop the
 * walk. It lists at most `maxEntries` entries in all (a folder of a
 * million files is not read to its end). Entries are listed and stat'ed
 * with synchronous calls, which are twice as fast as their promises here,
 * the walk yielding to the event loop every {@link WALK_BATCH} entries so no
 * stall is long. It enters at most {@link MAX_WALK_DEPTH} folders deep
 * (one descriptor is open per level). Resolves how it ended: "done" (all
 * that `visit` asked for was walked), "stopped" (by `visit`), "entries"
 * (over `maxEntries`) or "depth".
 */
export async function walkInside(workspace: ConfinedRoot, visit: (folder: WalkedFolder) => Promise<readonly string[] | null>, maxEntries = Number.POSITIVE_INFINITY): Promise<"done" | "stopped" | "entries" | "depth"> {
  const rootFd = openSync(workspace.root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  let budget = WALK_BATCH;
  let listed = 0;
  const walk = async (fd: number, dirPath: string, key: string, depth: number): Promise<"done" | "stopped" | "entries" | "depth"> => {
    if (depth > MAX_WALK_DEPTH) return "depth";
    const base = procFd ? `${procFd}/${fd}` : dirPath;
    const entries: WalkedEntry[] = [];
    let dir: Dir;
    try {
      dir = opendirSync(base);
    } catch (error) {
      if (depth > 0 && isUnreachable(error)) return "done"; // a folder it may not read: nothing under it is walked
      throw error;
    }
    try {
      for (let dirent = dir.readSync(); dirent !== null; dirent = dir.readSync()) {
        if (++listed > maxEntries) return "entries";
        if (--budget <= 0) {
          budget = WALK_BATCH;
          await yieldToLoop();
        }
        if (dirent.isDirectory()) entries.push({ name: dirent.name, stats: null });
        else {
          let stats: Stats | undefined;
          try {
            stats = lstatSync(`${base}/${dirent.name}`, { throwIfNoEntry: false });
          } catch (error) {
            if (!isUnreachable(error)) throw error;
          }
          // One removed since the listing, or that may not be looked at, is left out.
          if (stats !== undefined) entries.push({ name: dirent.name, stats: stats.isDirectory() ? null : stats });
        }
      }
    } finally {
      dir.closeSync();
    }
    const folder: WalkedFolder = {
      key,
      entries,
      read: (name, maxBytes) => readEntry(workspace, fd, dirPath, name, key === "" ? name : `${key}/${name}`, maxBytes),
      readLink: (name) => readlinkSync(`${base}/${name}`),
    };
    const enter = await visit(folder);
    if (enter === null) return "stopped";
    for (const name of enter) {
      let child: number;
      try {
        child = openSync(`${base}/${name}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        // Not a folder (a file, a link), removed meanwhile, or not readable: nothing under it is walked.
        if (isCode(error, "ENOTDIR") || isCode(error, "ELOOP") || isUnreachable(error)) continue;
        throw error;
      }
      try {
        const childPath = path.join(dirPath, name);
        if (!isInside(workspace.root, realPathSync(child, childPath))) continue;
        const end = await walk(child, childPath, key === "" ? name : `${key}/${name}`, depth + 1);
        if (end !== "done") return end;
      } finally {
        closeSync(child);
      }
    }
    return "done";
  };
  try {
    return await walk(rootFd, workspace.root, "", 0);
  } finally {
    closeSync(rootFd);
  }
}

/** Whether `error` says an entry is gone or may not be looked at. */
function isUnreachable(error: unknown): boolean {
  return isCode(error, "ENOENT") || isCode(error, "EACCES") || isCode(error, "EPERM");
}

/** How many folders deep {@link walkInside} goes at most. */
export const MAX_WALK_DEPTH = 256;

/** Entries a walk lists (and stats) between two yields to the event loop. */
const WALK_BATCH = 512;

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The real path of the folder open as `fd` (expected at `expected`). */
function realPathSync(fd: number, expected: string): string {
  if (procFd) return readlinkSync(`${procFd}/${fd}`);
  const real = realpathSync(expected);
  const [opened, named] = [fstatSync(fd), statSync(real)];
  return opened.dev === named.dev && opened.ino === named.ino ? real : "";
}

/** Reads the entry `name` of the folder open as `fd` (see {@link WalkedFolder.read}). */
async function readEntry(workspace: ConfinedRoot, fd: number, dirPath: string, name: string, requested: string, maxBytes: number): Promise<{ data: Buffer; stats: Stats }> {
  const handle = await open(procFd ? `${procFd}/${fd}/${name}` : path.join(dirPath, name), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  return readOpened(workspace, requested, handle, path.join(dirPath, name), maxBytes);
}

/** Checks `handle` as {@link openForRead} does, reads its first `maxBytes` bytes and closes it. */
async function readOpened(workspace: ConfinedRoot, requested: string, handle: FileHandle, expected: string, maxBytes: number): Promise<{ data: Buffer; stats: Stats }> {
  const { stats } = await checkOpened(workspace, requested, handle, expected, false);
  try {
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
    let done = 0;
    while (done < buffer.length) {
      const { bytesRead } = await handle.read(buffer, done, buffer.length - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return { data: buffer.subarray(0, done), stats };
  } finally {
    await handle.close();
  }
}

/** `/proc/self/fd` where the kernel offers it (Linux), else null: `${procFd}/<fd>/<name>` names an entry of an open folder. */
export const procFd = existsSync("/proc/self/fd") ? "/proc/self/fd" : null;

/** Symlinks followed (or races retried) at most in one call, as the kernel's limit. */
const maxLinks = 40;

/** An open folder of the workspace and its path. */
export interface ConfinedDir {
  handle: FileHandle;
  path: string;
}

/** What a step returns when the component it looked at is a symlink: its target, to resolve and walk again. */
class FollowLink {
  constructor(readonly target: string) {}
}

/** The path of `name` in the open folder `dir`, resolved from the descriptor where possible. */
function at(dir: ConfinedDir, name: string): string {
  return procFd ? `${procFd}/${dir.handle.fd}/${name}` : path.join(dir.path, name);
}

/**
 * Walks to the folder holding the last component of `requested` and runs
 * `use` on it with the components left (none: the root itself; several: a
 * folder on the way is missing and `create` was false). When `use` (or the
 * walk) meets a symlink, its target is resolved against the folder holding
 * it and the walk starts again from the root; a target outside throws
 * {@link PathEscapeError}. The folders stay open in `cursor` when one is
 * given, else they are closed when `use` returns; `use` must not close them.
 */
async function withParent<T>(
  workspace: ConfinedRoot,
  requested: string,
  create: boolean,
  cursor: FolderCursor | undefined,
  use: (dir: ConfinedDir, names: string[]) => Promise<T | FollowLink>,
): Promise<T> {
  if (requested.includes("\0")) throw errnoError("EINVAL", requested);
  const folders = cursor ?? new FolderCursor();
  try {
    let target = path.resolve(workspace.root, requested);
    for (let links = 0; ; links++) {
      if (!isInside(workspace.root, target)) throw new PathEscapeError(requested);
      if (links > maxLinks) throw errnoError("ELOOP", requested);
      const step = await walkParents(folders, workspace.root, target, create, requested);
      if (step instanceof FollowLink) {
        target = step.target;
        continue;
      }
      const result = await use(step.dir, step.names);
      if (!(result instanceof FollowLink)) return result;
      target = path.resolve(step.dir.path, result.target);
    }
  } finally {
    if (!cursor) await folders.close();
  }
}

/**
 * Opens (in `folders`) the root and each folder of `target` but the last
 * component; a symlink on the way gives a {@link FollowLink} to the absolute
 * path it leads to (with the rest of the components).
 */
async function walkParents(folders: FolderCursor, root: string, target: string, create: boolean, requested: string): Promise<{ dir: ConfinedDir; names: string[] } | FollowLink> {
  const names = path.relative(root, target).split(path.sep).filter((name) => name !== "");
  const parents = names.slice(0, -1);
  for (let i = await folders.keepCommon(root, parents); i < parents.length; i++) {
    const dir = folders.top;
    let child = await openChildDir(dir, names[i]!, requested).catch((error: unknown) => (isCode(error, "ENOENT") ? null : Promise.reject(error)));
    if (child === null) {
      if (!create) return { dir, names: names.slice(i) };
      await mkdir(at(dir, names[i]!)).catch((error: unknown) => (isCode(error, "EEXIST") ? undefined : Promise.reject(error)));
      child = await openChildDir(dir, names[i]!, requested);
    }
    if (child instanceof FollowLink) return new FollowLink(path.resolve(dir.path, child.target, ...names.slice(i + 1)));
    folders.push(names[i]!, child);
  }
  return { dir: folders.top, names: names.slice(-1) };
}

/** Opens the folder `name` of `dir` without following a link; a link gives its target. */
async function openChildDir(dir: ConfinedDir, name: string, requested: string): Promise<ConfinedDir | FollowLink> {
  const where = at(dir, name);
  try {
    return { handle: await open(where, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW), path: path.join(dir.path, name) };
  } catch (error) {
    if (!isCode(error, "ELOOP") && !isCode(error, "ENOTDIR")) throw error;
    const info = await lstat(where);
    if (info.isSymbolicLink()) return new FollowLink(await readlink(where));
    throw errnoError("ENOTDIR", requested);
  }
}

/** Opens `where` with `O_NOFOLLOW`; a link swapped in since the lstat gives its target. */
async function openNoFollow(where: string, flags: number): Promise<FileHandle | FollowLink> {
  try {
    return await open(where, flags | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    if (!isCode(error, "ELOOP")) throw error;
    return new FollowLink(await readlink(where));
  }
}

/** Checks what `handle` opened (regular, one link, inside); closes it and throws when not. */
async function checkOpened(workspace: ConfinedRoot, requested: string, handle: FileHandle, expected: string, created: boolean): Promise<ConfinedFile> {
  try {
    const stats = await handle.stat();
    refuseUnlessFile(requested, stats);
    const real = await checkRealPath(workspace, requested, handle, expected);
    return { handle, path: real, stats, created };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The real path of what `handle` opened (expected at `expected`); throws {@link PathEscapeError} when outside. */
async function checkRealPath(workspace: ConfinedRoot, requested: string, handle: FileHandle, expected: string): Promise<string> {
  let real: string;
  if (procFd) {
    real = await readlink(`${procFd}/${handle.fd}`);
  } else {
    real = await realpath(expected);
    const [opened, named] = await Promise.all([handle.stat(), stat(real)]);
    if (opened.dev !== named.dev || opened.ino !== named.ino) throw new PathEscapeError(requested);
  }
  if (!isInside(workspace.root, real)) throw new PathEscapeError(requested);
  return real;
}

function refuseUnlessFile(requested: string, info: Stats): void {
  if (info.isDirectory()) throw errnoError("EISDIR", requested);
  if (info.isFIFO()) throw new NotRegularFileError(requested, "FIFO");
  if (info.isSocket()) throw new NotRegularFileError(requested, "socket");
  if (info.isCharacterDevice() || info.isBlockDevice()) throw new NotRegularFileError(requested, "device");
  if (!info.isFile()) throw new NotRegularFileError(requested, "special file");
  if (info.nlink > 1) throw new HardLinkError(requested, info.nlink);
}

function fileName(requested: string, names: string[]): string {
  if (names.length === 0) throw errnoError("EISDIR", requested);
  if (names.length > 1) throw errnoError("ENOENT", requested);
  return names[0]!;
}

function ignoreMissing(error: unknown): null {
  if (isCode(error, "ENOENT")) return null;
  throw error;
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

function errnoError(code: string, requested: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${requested}`), { code });
}
