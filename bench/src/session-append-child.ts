/**
 * A child process of the context-postgres benchmark: opens `sessions`
 * sessions at once (PostgreSQL sessions of one store, or JSONL files) and
 * appends `appends` records of workload W to each, every session awaiting
 * its own appends one after the other (as that many agents in one process
 * would). Waits for a line on stdin before starting, so both children start
 * together; prints one JSON line: elapsed ms and every append's latency.
 *
 *   node src/session-append-child.ts postgres <url> <schema> <prefix> <sessions> <appends>
 *   node src/session-append-child.ts jsonl <dir> - <prefix> <sessions> <appends>
 */
import { once } from "node:events";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { JsonlContextFile, type ContextLog } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { PostgresContextStore } from "@kosong/context-postgres";
import { workMessage } from "./workload-w.ts";

const [backend, where, schema, prefix, sessionsArg, appendsArg] = process.argv.slice(2) as [string, string, string, string, string, string];
const sessions = Number(sessionsArg);
const appends = Number(appendsArg);

const store = backend === "postgres" ? await PostgresContextStore.connect({ connectionString: where, max: 20 }, { schema }) : null;
const open = (i: number): Promise<ContextLog> =>
  store !== null ? store.openLog(`${prefix}-${i}`) : JsonlContextFile.open(path.join(where, `${prefix}-${i}.jsonl`), { durability: "batch" });
const logs = await Promise.all(Array.from({ length: sessions }, (_, i) => open(i)));
const records = Array.from({ length: appends }, (_, i) => messageRecord(workMessage(i)));

process.stdout.write("ready\n");
await once(process.stdin, "data");
const latencies: number[] = [];
const start = performance.now();
await Promise.all(
  logs.map(async (log) => {
    for (const record of records) {
      const t = performance.now();
      await log.append([record]);
      latencies.push(performance.now() - t);
    }
  }),
);
const elapsed = performance.now() - start;
await Promise.all(logs.map((log) => log.close()));
await store?.close();
// No process.exit: it would cut the pipe before this line is flushed.
process.stdout.write(`${JSON.stringify({ elapsed, latencies })}\n`);
