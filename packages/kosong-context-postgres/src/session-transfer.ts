/**
 * Sessions to and from kimi-cli's `context.jsonl` format: the current log as
 * the file, each rotation as `<stem>_<n><ext>` beside it, and the list of
 * those rotations as `<file>.export.json` (an import reads only the
 * rotations it names; a folder without it, such as kimi-cli's, is read by
 * the file names). Every file is created exclusively under a temporary name
 * and renamed into place: a symlink planted in the folder is replaced, never
 * followed.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { lstat, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { PoolClient } from "pg";
import Cursor from "pg-cursor";
import { StorageOpenError, type RestoreReport } from "@kosong/context";
import { encodeRecord, scanContextFile } from "@kosong/context/records";
import { retryOnConnectionLoss, withClient } from "./connection-errors.js";
import type { SessionBackend } from "./postgres-context-log.js";

/** What {@link exportSession} wrote. */
export interface SessionExport {
  /** The context file (absolute). */
  file: string;
  /** Records in it. */
  records: number;
  /** The rotation files written, lowest number first. */
  rotations: Array<{ n: number; file: string; records: number }>;
}

/** The rotation file `n` of `file`: `context.jsonl` -> `context_3.jsonl`. */
export function rotationFile(file: string, n: number): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), `${path.basename(file, ext)}_${n}${ext}`);
}

const BATCH = 2000;

/** The list of an export's rotations beside its file `file`: `context.jsonl` -> `context.jsonl.export.json`. */
export function exportManifestFile(file: string): string {
  return `${file}.export.json`;
}

/** What an export's manifest holds. */
interface ExportManifest {
  rotations: number[];
}

/** A new file beside `file`, created exclusively (0600), to be renamed onto it. */
function temporaryBeside(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Creates a new file beside `file`, exclusively (never through a link), `write` filling it; returns its name, to be renamed onto `file`. */
async function writeExclusive(file: string, write: (out: NodeJS.WritableStream, failed: Promise<never>) => Promise<void>): Promise<string> {
  const temporary = temporaryBeside(file);
  const out = createWriteStream(temporary, { flags: "wx", mode: 0o600 });
  const failed = once(out, "error").then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  try {
    await write(out, failed);
  } finally {
    out.end();
  }
  await Promise.race([once(out, "finish"), failed]);
  return temporary;
}

async function writeGeneration(client: PoolClient, schema: string, generation: string | undefined, file: string): Promise<{ temporary: string; records: number }> {
  let records = 0;
  const temporary = await writeExclusive(file, async (out, failed) => {
    // An unknown session exports as an empty file.
    if (generation === undefined) return;
    const cursor = client.query(new Cursor<{ line: string }>(`SELECT line FROM ${schema}.records WHERE generation_id = $1 ORDER BY seq`, [generation]));
    try {
      for (;;) {
        const batch = await cursor.read(BATCH);
        if (batch.length === 0) break;
        records += batch.length;
        if (!out.write(batch.map((row) => `${row.line}\n`).join(""))) await Promise.race([once(out, "drain"), failed]);
      }
    } finally {
      await cursor.close();
    }
  });
  return { temporary, records };
}

/**
 * Writes the session's current log and rotations as files, from one
 * snapshot, each created under a temporary name then renamed into place;
 * then the manifest, then removes the rotation files beside `file` that
 * this export did not write (an earlier export's).
 */
export function exportSession(backend: SessionBackend, sessionId: string, file: string): Promise<SessionExport> {
  const target = path.resolve(file);
  return retryOnConnectionLoss(backend.reconnectTimeoutMs, () =>
    withClient(backend.pool, async (client) => {
      const written: Array<{ temporary: string; file: string }> = [];
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const { rows } = await client.query<{ generation: string }>(`SELECT current_generation::text AS generation FROM ${backend.schema}.sessions WHERE session_id = $1`, [sessionId]);
        const rotations = await client.query<{ n: number; generation: string }>(
          `SELECT n, generation_id::text AS generation FROM ${backend.schema}.rotations WHERE session_id = $1 ORDER BY n`,
          [sessionId],
        );
        const result: SessionExport = { file: target, records: 0, rotations: [] };
        const current = await writeGeneration(client, backend.schema, rows[0]?.generation, target);
        written.push({ temporary: current.temporary, file: target });
        result.records = current.records;
        for (const rotation of rotations.rows) {
          const rotationPath = rotationFile(target, rotation.n);
          const { temporary, records } = await writeGeneration(client, backend.schema, rotation.generation, rotationPath);
          written.push({ temporary, file: rotationPath });
          result.rotations.push({ n: rotation.n, file: rotationPath, records });
        }
        await client.query("COMMIT");
        const manifest: ExportManifest = { rotations: result.rotations.map((r) => r.n) };
        const manifestFile = exportManifestFile(target);
        written.push({ temporary: await writeExclusive(manifestFile, async (out) => void out.write(`${JSON.stringify(manifest)}\n`)), file: manifestFile });
        for (const { temporary, file: name } of written) await rename(temporary, name);
        written.length = 0;
        const kept = new Set(manifest.rotations);
        await Promise.all((await listedRotations(target)).filter((n) => !kept.has(n)).map((n) => rm(rotationFile(target, n), { force: true })));
        return result;
      } finally {
        await Promise.all(written.map(({ temporary }) => rm(temporary, { force: true })));
      }
    }),
  );
}

/** The lines of a context file, re-encoded from its valid records (damaged lines skipped and reported). */
async function readLines(file: string): Promise<{ lines: string[]; report: RestoreReport }> {
  const stats = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new StorageOpenError(file, error.code === "ENOENT" ? "no such file to import" : error.message, { cause: error });
  });
  if (!stats.isFile()) throw new StorageOpenError(file, "not a regular file");
  const lines: string[] = [];
  const report = await scanContextFile(file, (scanned) => lines.push(encodeRecord(scanned.record)));
  return { lines, report };
}

/** The numbers of the files named like rotations of `target` (`<stem>_<n><ext>`) in its folder. */
async function listedRotations(target: string): Promise<number[]> {
  const ext = path.extname(target);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^${escape(path.basename(target, ext))}_([1-9][0-9]{0,8})${escape(ext)}$`);
  const names = await readdir(path.dirname(target)).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const match = pattern.exec(name);
    return match === null ? [] : [Number(match[1])];
  });
}

/** The rotations an export named in its manifest beside `target`, or null when there is none (a folder kimi-cli wrote). */
async function manifestRotations(target: string): Promise<number[] | null> {
  const manifestFile = exportManifestFile(target);
  let text: string;
  try {
    if (!(await lstat(manifestFile)).isFile()) throw new Error("not a regular file");
    text = await readFile(manifestFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new StorageOpenError(manifestFile, (error as Error).message, { cause: error });
  }
  const manifest = JSON.parse(text) as Partial<ExportManifest>;
  if (!Array.isArray(manifest.rotations) || !manifest.rotations.every((n) => Number.isSafeInteger(n) && n > 0)) {
    throw new StorageOpenError(manifestFile, "not an export's list of rotations");
  }
  return manifest.rotations;
}

/**
 * A context file and its rotations, read for an import: those its export's
 * manifest names, else (no manifest) those named like its rotations.
 * Throws `StorageOpenError` when `file` (or a rotation the manifest names) is missing.
 */
export async function readSessionFiles(file: string): Promise<{ current: string[]; rotations: Map<number, string[]>; report: RestoreReport }> {
  const target = path.resolve(file);
  const numbers = (await manifestRotations(target)) ?? (await listedRotations(target));
  const { lines, report } = await readLines(target);
  const rotations = new Map<number, string[]>();
  for (const n of numbers.sort((a, b) => a - b)) rotations.set(n, (await readLines(rotationFile(target, n))).lines);
  return { current: lines, rotations, report };
}
