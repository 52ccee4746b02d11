/**
 * Sessions to and from kimi-cli's `context.jsonl` format: the current log as
 * the file, each rotation as `<stem>_<n><ext>` beside it.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { PoolClient } from "pg";
import Cursor from "pg-cursor";
import type { RestoreReport } from "@kosong/context";
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

async function writeGeneration(client: PoolClient, schema: string, generation: string, file: string): Promise<number> {
  const out = createWriteStream(file);
  const failed = once(out, "error").then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  let records = 0;
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
    out.end();
  }
  await Promise.race([once(out, "finish"), failed]);
  return records;
}

/** Writes the session's current log and rotations as files, from one snapshot. */
export function exportSession(backend: SessionBackend, sessionId: string, file: string): Promise<SessionExport> {
  const target = path.resolve(file);
  return retryOnConnectionLoss(backend.reconnectTimeoutMs, () =>
    withClient(backend.pool, async (client) => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const { rows } = await client.query<{ generation: string }>(`SELECT current_generation::text AS generation FROM ${backend.schema}.sessions WHERE session_id = $1`, [sessionId]);
      const rotations = await client.query<{ n: number; generation: string }>(
        `SELECT n, generation_id::text AS generation FROM ${backend.schema}.rotations WHERE session_id = $1 ORDER BY n`,
        [sessionId],
      );
      const current = rows[0]?.generation;
      const result: SessionExport = { file: target, records: 0, rotations: [] };
      result.records = current === undefined ? 0 : await writeGeneration(client, backend.schema, current, target);
      if (current === undefined) await writeGenerationless(target);
      for (const rotation of rotations.rows) {
        const rotationPath = rotationFile(target, rotation.n);
        result.rotations.push({ n: rotation.n, file: rotationPath, records: await writeGeneration(client, backend.schema, rotation.generation, rotationPath) });
      }
      await client.query("COMMIT");
      return result;
    }),
  );
}

/** An unknown session exports as an empty file. */
async function writeGenerationless(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.end();
  await once(out, "finish");
}

/** The lines of a context file, re-encoded from its valid records (damaged lines skipped and reported). */
async function readLines(file: string): Promise<{ lines: string[]; report: RestoreReport }> {
  const lines: string[] = [];
  const report = await scanContextFile(file, (scanned) => lines.push(encodeRecord(scanned.record)));
  return { lines, report };
}

/** A context file and its rotations, read for an import. */
export async function readSessionFiles(file: string): Promise<{ current: string[]; rotations: Map<number, string[]>; report: RestoreReport }> {
  const target = path.resolve(file);
  const { lines, report } = await readLines(target);
  const ext = path.extname(target);
  const stem = path.basename(target, ext);
  const pattern = new RegExp(`^${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}_([1-9][0-9]{0,8})${ext.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  const rotations = new Map<number, string[]>();
  const names = await readdir(path.dirname(target)).catch(() => [] as string[]);
  const numbers = names.flatMap((name) => {
    const match = pattern.exec(name);
    return match === null ? [] : [Number(match[1])];
  });
  for (const n of numbers.sort((a, b) => a - b)) rotations.set(n, (await readLines(rotationFile(target, n))).lines);
  return { current: lines, rotations, report };
}
