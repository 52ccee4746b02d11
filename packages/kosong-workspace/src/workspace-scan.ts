/**
 * A bounded scan of the workspace's files, for journaling what a `Shell`
 * command changes (its writes are not declared): the stamp (kind, size,
 * mtime, permission bits) of every file and symlink under the root, walked
 * through folder descriptors (see `walkInside`: links are listed, never
 * followed; a folder reached through a link is not entered). `.git` and what
 * the `.gitignore` files ignore (see `gitignore.ts`) are skipped. The
 * walk stops at {@link ScanLimits}: a scan that hit one says so and must not
 * be used. Asked to, the scan also reads the content of each file whose
 * stamp differs from the one it was last read with (see {@link ScanContents}).
 */
import { MAX_WALK_DEPTH, walkInside, type ConfinedRoot, type WalkedFolder } from "./confined-fs.js";
import { mapLimit } from "./map-limit.js";
import { GitignoreMatcher, GitignoreTooCostlyError, MAX_GITIGNORE_BYTES, parseGitignore, type GitignoreRule } from "./gitignore.js";
import type { FileStamp, ReadFileState } from "./workspace-files.js";

/** How much a scan may cover. */
export interface ScanLimits {
  /** Files and symlinks at most (default 2,000). */
  maxFiles?: number;
  /** Total bytes of those files at most (default 20 MiB). */
  maxBytes?: number;
}

/** Default {@link ScanLimits}. */
export const defaultScanLimits: Required<ScanLimits> = { maxFiles: 2000, maxBytes: 20 * 1024 * 1024 };

/** A file of a scan that read contents: its stamp, and its state when it had that stamp. */
export interface ScannedFile {
  stamp: FileStamp;
  state: ReadFileState;
}

/** What a scan reads of the files' contents: what is read already (kept when the stamp is the same), and the size cap of a file. */
export interface ScanContents {
  known: ReadonlyMap<string, ScannedFile>;
  maxFileBytes: number;
}

/**
 * What a scan saw: each file's stamp by workspace key (and its content, when
 * asked), and `covers(key)`: whether it would have listed `key` had it
 * existed (its folders walked or missing, neither it nor one of them `.git`,
 * ignored or a link), so that a key it covers and did not list did not
 * exist. Or the limit it hit.
 */
export type WorkspaceScan =
  | { stamps: Map<string, FileStamp>; contents: Map<string, ScannedFile>; covers: (key: string) => boolean; limitHit: null }
  | { stamps: null; contents: null; covers: null; limitHit: string };

/** How many entries a scan lists at most, per file of {@link ScanLimits.maxFiles}. */
const ENTRIES_PER_FILE = 10;

/** Files read at once by a scan that reads contents. */
const PARALLEL_READS = 8;

/** Scans the workspace folder `root` (absolute, symlinks resolved) within `limits`, reading contents when `contents` is given. */
export async function scanWorkspace(root: string, limits: ScanLimits = {}, contents?: ScanContents): Promise<WorkspaceScan> {
  const { maxFiles, maxBytes } = { ...defaultScanLimits, ...limits };
  // Entries listed at most, ignored ones and folders included: a folder of a million ignored files is not read to its end.
  const maxEntries = maxFiles * ENTRIES_PER_FILE;
  const confined: ConfinedRoot = { root };
  const stamps = new Map<string, FileStamp>();
  const read = new Map<string, ScannedFile>();
  const matcher = new GitignoreMatcher();
  /** The `.gitignore` rules that apply under each folder walked. */
  const rulesUnder = new Map<string, readonly GitignoreRule[]>();
  let bytes = 0;
  let limitHit: string | null = null;
  const walked = walkInside(confined, async (folder) => {
    const above = folder.key === "" ? [] : rulesUnder.get(parentKey(folder.key))!;
    const own = folder.entries.some((e) => e.name === ".gitignore" && e.stats?.isFile()) ? await readGitignore(folder) : [];
    const rules = own.length === 0 ? above : [...above, ...own];
    rulesUnder.set(folder.key, rules);
    const ignored = (key: string, isFolder: boolean) => rules.length > 0 && matcher.ignored(rules, key, isFolder);
    const enter: string[] = [];
    const toRead: string[] = [];
    for (const { name, stats } of folder.entries) {
      const key = folder.key === "" ? name : `${folder.key}/${name}`;
      if (stats === null) {
        if (name !== ".git" && !ignored(key, true)) enter.push(name);
        continue;
      }
      if (ignored(key, false)) continue;
      const kind = stats.isFile() ? "file" : stats.isSymbolicLink() ? "link" : "other";
      const stamp: FileStamp = { kind, size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 };
      stamps.set(key, stamp);
      if (kind === "file") bytes += stats.size;
      if (stamps.size > maxFiles) limitHit = `the workspace holds more than ${maxFiles} files`;
      else if (bytes > maxBytes) limitHit = `the workspace's files exceed ${maxBytes} bytes`;
      if (limitHit !== null) return null;
      if (contents === undefined) continue;
      const known = contents.known.get(key);
      if (known !== undefined && sameStamp(known.stamp, stamp)) read.set(key, known);
      else toRead.push(name);
    }
    if (contents !== undefined) {
      await mapLimit(toRead, PARALLEL_READS, async (name) => {
        const key = folder.key === "" ? name : `${folder.key}/${name}`;
        read.set(key, await readScanned(folder, name, stamps.get(key)!, contents.maxFileBytes));
      });
    }
    return enter;
  }, maxEntries);
  try {
    const end = await walked;
    if (end === "entries") limitHit = `the workspace lists more than ${maxEntries} entries (ignored ones included)`;
    if (end === "depth") limitHit = `the workspace's folders nest more than ${MAX_WALK_DEPTH} deep`;
  } catch (error) {
    // The root gone or unreadable, descriptors exhausted: the scan cannot be used, and says why.
    limitHit = error instanceof GitignoreTooCostlyError ? error.message : `the workspace could not be scanned (${(error as Error).message})`;
  }
  if (limitHit !== null) return { stamps: null, contents: null, covers: null, limitHit };
  const covers = (key: string): boolean => {
    const parts = key.split("/");
    let folder = "";
    try {
      for (const [i, name] of parts.entries()) {
        const child = folder === "" ? name : `${folder}/${name}`;
        const rules = rulesUnder.get(folder)!;
        const last = i === parts.length - 1;
        if (name === ".git" || (rules.length > 0 && matcher.ignored(rules, child, !last))) return false;
        if (last) return true;
        // A folder not walked: missing (so was the key), or a link or a file (what is under it was not scanned).
        if (!rulesUnder.has(child)) return !stamps.has(child);
        folder = child;
      }
    } catch {
      // Over the matcher's budget: not known.
    }
    return false;
  };
  return { stamps, contents: read, covers, limitHit: null };
}

/** Whether two stamps are the same (nothing seen changed). */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.kind === b.kind && a.size === b.size && a.mtimeMs === b.mtimeMs && a.mode === b.mode;
}

/** The state of the entry `name` of `folder` listed with `stamp`, and the stamp it was read with. */
async function readScanned(folder: WalkedFolder, name: string, stamp: FileStamp, maxFileBytes: number): Promise<ScannedFile> {
  try {
    if (stamp.kind === "link") return { stamp, state: { kind: "link", target: folder.readLink(name) } };
    if (stamp.kind !== "file") return { stamp, state: { kind: "unsupported", reason: "not a regular file" } };
    if (stamp.size > maxFileBytes) return { stamp, state: { kind: "too-large", size: stamp.size } };
    const { data, stats } = await folder.read(name, maxFileBytes + 1);
    if (stats.size > maxFileBytes) return { stamp, state: { kind: "too-large", size: stats.size } };
    // The stamp the content was read with: a change since the listing is then seen by the next scan.
    return { stamp: { kind: "file", size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 }, state: { kind: "file", data, mode: stats.mode & 0o7777 } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { stamp, state: { kind: "missing" } };
    return { stamp, state: { kind: "unsupported", reason: (error as Error).message } };
  }
}

/** The key of the folder holding `key`. */
function parentKey(key: string): string {
  const slash = key.lastIndexOf("/");
  return slash === -1 ? "" : key.slice(0, slash);
}

/** The rules of `folder`'s `.gitignore` (read as the other files are: not through a link; none when it cannot be read). */
async function readGitignore(folder: WalkedFolder): Promise<GitignoreRule[]> {
  try {
    const { data } = await folder.read(".gitignore", MAX_GITIGNORE_BYTES);
    return parseGitignore(data.toString("utf8"), folder.key);
  } catch {
    return [];
  }
}
