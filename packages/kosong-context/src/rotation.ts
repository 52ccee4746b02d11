/**
 * Rotations of a context file: complete copies of earlier versions kept as
 * `<stem>_<N><ext>` beside it (`context.jsonl` -> `context_1.jsonl`), as
 * kimi-cli names them. A new rotation takes the number after the highest
 * existing one and is created exclusively, so two writers never share one.
 */
import { link, open, readdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import { copyToNewFile, escapeRegExp, fsyncDirectory, hasCode, tempPathFor, unlinkQuietly } from "./durable-fs.js";

/** One rotation of a context file. */
export interface Rotation {
  /** Its number (1, 2, ...). */
  n: number;
  /** Its absolute path. */
  path: string;
}

/** A rotation with its size and modification time, as listed. */
export interface RotationInfo extends Rotation {
  size: number;
  mtimeMs: number;
}

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
export async function listRotations(file: string): Promise<RotationInfo[]> {
  const absolute = path.resolve(file);
  const out: RotationInfo[] = [];
  for (const n of await rotationNumbers(absolute)) {
    const p = rotationPath(absolute, n);
    try {
      const info = await stat(p);
      if (info.isFile()) out.push({ n, path: p, size: info.size, mtimeMs: info.mtimeMs });
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
 * copy is written to a temp file, synced, and renamed onto an exclusively
 * reserved name. The directory is synced before returning.
 *
 * Until the caller replaces `file` with a new inode, `file` and the rotation
 * share one: the caller must not append to `file` in between.
 */
export async function linkNextRotation(file: string): Promise<Rotation> {
  const numbers = await rotationNumbers(file);
  let n = (numbers[numbers.length - 1] ?? 0) + 1;
  for (;;) {
    const target = rotationPath(file, n);
    try {
      await link(file, target);
      await fsyncDirectory(path.dirname(file));
      return { n, path: target };
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

async function copyToNextRotation(file: string, first: number): Promise<Rotation> {
  const temp = tempPathFor(file);
  try {
    await copyToNewFile(file, temp);
    for (let n = first; ; n += 1) {
      const target = rotationPath(file, n);
      try {
        const reservation = await open(target, "wx");
        await reservation.close();
      } catch (error) {
        if (hasCode(error, "EEXIST")) continue;
        throw error;
      }
      await rename(temp, target);
      await fsyncDirectory(path.dirname(file));
      return { n, path: target };
    }
  } finally {
    await unlinkQuietly(temp);
  }
}
