/**
 * A bounded scan of the workspace's files, for journaling what a `Shell`
 * command changes (its writes are not declared): the stamp (kind, size,
 * mtime, permission bits) of every file and symlink under the root, walked
 * through the confined primitives (links are listed, never followed; a
 * folder reached through a link is not entered). `.git` and what the root
 * `.gitignore` ignores (see `root-gitignore.ts`) are skipped. The walk stops
 * at {@link ScanLimits}: a scan that hit one says so and must not be used.
 */
import { listDirInside, openForRead, readWhole, type ConfinedRoot } from "./confined-fs.js";
import { parseGitignore, type IgnoreTest } from "./root-gitignore.js";
import type { FileStamp } from "./workspace-files.js";

/** How much a scan may cover. */
export interface ScanLimits {
  /** Files and symlinks at most (default 2,000). */
  maxFiles?: number;
  /** Total bytes of those files at most (default 20 MiB). */
  maxBytes?: number;
}

/** Default {@link ScanLimits}. */
export const defaultScanLimits: Required<ScanLimits> = { maxFiles: 2000, maxBytes: 20 * 1024 * 1024 };

/** What a scan saw: each file's stamp by workspace key, or the limit it hit. */
export type WorkspaceScan = { stamps: Map<string, FileStamp>; limitHit: null } | { stamps: null; limitHit: string };

/** Scans the workspace folder `root` (absolute, symlinks resolved) within `limits`. */
export async function scanWorkspace(root: string, limits: ScanLimits = {}): Promise<WorkspaceScan> {
  const { maxFiles, maxBytes } = { ...defaultScanLimits, ...limits };
  const confined: ConfinedRoot = { root };
  const ignored = await rootIgnore(confined);
  const stamps = new Map<string, FileStamp>();
  let bytes = 0;
  const folders = [""];
  for (let folder = folders.shift(); folder !== undefined; folder = folders.shift()) {
    let listing;
    try {
      listing = await listDirInside(confined, folder === "" ? "." : folder);
    } catch {
      continue; // removed meanwhile, or not enterable: nothing of it is journaled
    }
    for (const { name, stats } of listing.entries) {
      const key = folder === "" ? name : `${folder}/${name}`;
      const isFolder = stats.isDirectory();
      if ((isFolder && name === ".git") || ignored(key, isFolder)) continue;
      if (isFolder) {
        folders.push(key);
        continue;
      }
      const kind = stats.isFile() ? "file" : stats.isSymbolicLink() ? "link" : "other";
      stamps.set(key, { kind, size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 });
      if (kind === "file") bytes += stats.size;
      if (stamps.size > maxFiles) return { stamps: null, limitHit: `the workspace holds more than ${maxFiles} files` };
      if (bytes > maxBytes) return { stamps: null, limitHit: `the workspace's files exceed ${maxBytes} bytes` };
    }
  }
  return { stamps, limitHit: null };
}

/** The root `.gitignore`'s test (read as the other files are: not through a link out; none when it cannot be read). */
async function rootIgnore(confined: ConfinedRoot): Promise<IgnoreTest> {
  try {
    const file = await openForRead(confined, ".gitignore");
    try {
      return parseGitignore(await readWhole(file));
    } finally {
      await file.handle.close();
    }
  } catch {
    return parseGitignore("");
  }
}
