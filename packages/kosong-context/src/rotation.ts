/**
 * Rotations of a context file: complete copies of earlier versions kept as
 * `<stem>_<N><ext>` beside it (`context.jsonl` -> `context_1.jsonl`), as
 * kimi-cli names them. A new rotation takes the number after the highest
 * existing one and is created exclusively, so two writers never share one.
 * Their notes (what each is as a branch) are lines of `<file>.branches`
 * beside them (see `rotation-notes.ts`).
 */
import { link, lstat, readdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import type { LogRotation, LogRotationInfo } from "./context-log.js";
import { copyToNewFile, escapeRegExp, fsyncDirectory, hasCode, tempPathFor, unlinkQuietly } from "./durable-fs.js";
import { readRotationNotes } from "./rotation-notes.js";

function nameParts(file: string): { dir: string; stem: string; ext: string } {
  const parsed = path.parse(file);
  return { dir: parsed.dir, stem: parsed.name, ext: parsed.ext };
}

/** The path of rotation `n` of `file`. */
export function rotationPath(file: string, n: number): string {
  const { dir, stem, ext } = nameParts(path.resolve(file));
  return path.join(dir, `${stem}_${n}${ext}`);
}

async function rotationNumbers(file: string): Promise<number[]> {
  const { dir, stem, ext } = nameParts(file);
  const pattern = new RegExp(`^${escapeRegExp(stem)}_(\\d+)${escapeRegExp(ext)}$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return [];
    throw error;
  }
  const numbers: number[] = [];
  for (const name of names) {
    const digits = pattern.exec(name)?.[1];
    if (digits === undefined) continue;
    const n = Number(digits);
    // Only names that rotationPath(n) gives back, with room for n + 1: `_01` or a 30-digit number is not a rotation.
    if (String(n) === digits && n < Number.MAX_SAFE_INTEGER) numbers.push(n);
  }
  return numbers.sort((a, b) => a - b);
}

/** The rotations of `file`, oldest number first. */
export async function listRotations(file: string): Promise<LogRotationInfo[]> {
  const absolute = path.resolve(file);
  const out: LogRotationInfo[] = [];
  const notes = await readRotationNotes(absolute);
  for (const n of await rotationNumbers(absolute)) {
    const p = rotationPath(absolute, n);
    try {
      const info = await stat(p);
      // A note counts only for the rotation it was written for: same number, same size (a rotation never changes).
      const noted = notes.get(n);
      const note = noted?.size === info.size ? noted.note : undefined;
      if (info.isFile()) out.push({ n, location: p, size: info.size, mtimeMs: info.mtimeMs, ...(note && { note }) });
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
    }
  }
  return out;
}

/**
 * Makes the current content of `file` its next rotation, without copying:
 * a hard link, created exclusively (the number after the highest existing
 * one, then the next free one). Where hard links are unsupported, a complete
 * copy is written to a temp file, synced, and renamed onto the next free
 * name. The directory is synced before returning.
 *
 * Until the caller replaces `file` with a new inode, `file` and the rotation
 * share one: the caller must not append to `file` in between.
 */
export async function linkNextRotation(file: string): Promise<LogRotation> {
  const numbers = await rotationNumbers(file);
  let n = (numbers[numbers.length - 1] ?? 0) + 1;
  for (;;) {
    const target = rotationPath(file, n);
    try {
      await link(file, target);
      await fsyncDirectory(path.dirname(file));
      return { n, location: target };
    } catch (error) {
      if (hasCode(error, "EEXIST")) {
        n += 1;
        continue;
      }
      if (hasCode(error, "EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS", "EMLINK")) return copyToNextRotation(file, n);
      throw error;
    }
  }
}

/**
 * The copy fallback: a complete copy written under a temp name and synced,
 * then renamed onto the first free rotation name, so a crash leaves no
 * rotation or a complete one, never an empty or partial one (the next open
 * removes the temp file). The name is free because the writer holds the
 * file's lock.
 */
async function copyToNextRotation(file: string, first: number): Promise<LogRotation> {
  return writeNextRotation(file, first, (temp) => copyToNewFile(file, temp));
}

/**
 * Makes a new rotation of `file` from a temp file that `write` creates and
 * syncs, renamed onto the first free rotation name from `first` (default:
 * after the highest), so a crash leaves no rotation or a complete one. The
 * caller holds the file's lock.
 */
export async function writeNextRotation(file: string, first: number | null, write: (temp: string) => Promise<void>): Promise<LogRotation> {
  const temp = tempPathFor(file);
  try {
    await write(temp);
    let n = first ?? ((await rotationNumbers(file)).at(-1) ?? 0) + 1;
    while (await exists(rotationPath(file, n))) n += 1;
    const target = rotationPath(file, n);
    await rename(temp, target);
    await fsyncDirectory(path.dirname(file));
    return { n, location: target };
  } finally {
    await unlinkQuietly(temp);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return false;
    throw error;
  }
}
