/**
 * Opening a huge saved session against opening a 20,000-message one, as a
 * user does it: the built CLI (`kosong --resume <id> -p hi`, print mode) in
 * a fresh process per sample, from its start to its first request reaching
 * the fake provider server (real HTTP, the official openai SDK), and its
 * peak RSS (`VmHWM` of /proc/<pid>/status, read while the server holds that
 * request back). Samples of the two sessions are interleaved.
 *
 * - small: workload W, 20,000 messages (~17 MB) in one `context.jsonl`, no
 *   compaction.
 * - huge: ~200 MB, ~220,000 messages: compactions every 18,000 messages,
 *   each keeping the conversation it replaced as a rotation
 *   (`context_N.jsonl`, as `clear()` does in kimi-cli's format, noted in
 *   `context.jsonl.branches`), the last compaction's result onward (20,000
 *   messages) in `context.jsonl`, and the file journal with every
 *   checkpoint of the whole session.
 *
 * Goals (issue 32): time within 2x and peak RSS within 1.5x of the small
 * session. The sessions are generated into a temp folder at bench time
 * (at a tenth of these sizes in quick mode).
 * Linux only (reads /proc); needs the built CLI and builds it when missing.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { ensureCliBuilt, kosongBin } from "../cli-process.ts";
import { comparison, median, toRow } from "../measure.ts";
import { writeSession, type WrittenSession } from "../session-files.ts";

/** How long the server holds the first request back: the peak RSS is read meanwhile. */
const HOLD_MS = 300;

interface Sample {
  ms: number;
  peakRssMb: number;
  messages: number;
}

/** Peak RSS of `pid` so far, in MB (0 once it is gone). */
function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** One `kosong --resume id -p hi`: ms from spawn to its request at the server, its peak RSS then, and the messages it sent. */
async function openOnce(server: FakeProviderServer, env: NodeJS.ProcessEnv, cwd: string, id: string): Promise<Sample> {
  server.reset();
  server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Done." }] }, delayMs: HOLD_MS });
  const started = performance.now();
  const child = spawn(process.execPath, [kosongBin, "--model", "bench-model", "--max-context-size", "2000000", "--sandbox", "off", "--resume", id, "-p", "hi"], {
    env,
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  let sample: Sample | null = null;
  const timer = setInterval(() => {
    if (sample !== null || server.requests.length === 0) return;
    const body = server.requests[0]!.body;
    sample = { ms: performance.now() - started, peakRssMb: peakRssMb(child.pid!), messages: Array.isArray(body?.messages) ? body.messages.length : 0 };
  }, 1);
  const code = await closed;
  clearInterval(timer);
  if (code !== 0 || sample === null) throw new Error(`kosong --resume ${id} exited ${code} before its request: ${stderr.slice(-600)}`);
  return sample;
}

const benchmark: Benchmark = {
  name: "session-open",
  async run({ quick }) {
    if (process.platform !== "linux") return [];
    ensureCliBuilt();
    const work = mkdtempSync(path.join(tmpdir(), "kosong-bench-session-open-"));
    const server = await startFakeProviderServer();
    try {
      const home = path.join(work, "home");
      const cwd = path.join(work, "project");
      mkdirSync(cwd, { recursive: true });
      // Quick mode (CI) keeps the shapes at a tenth of the size.
      const scale = quick ? 10 : 1;
      const current = 20_000 / scale;
      const small = writeSession(home, "20250101-000000-0000", cwd, { compactedParts: [], currentMessages: current, tokenCount: 20_000 });
      // Rotations of 18,000 messages (a compaction each) until the session holds ~200 MB.
      const perMessage = small.bytes / small.messages;
      const parts: number[] = [];
      while ((parts.length * 18_000 + 20_000) * perMessage < 200e6) parts.push(18_000 / scale);
      const huge = writeSession(home, "20250101-000001-0000", cwd, { compactedParts: parts, currentMessages: current, tokenCount: 20_000 });
      const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: home, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: `${server.url}/v1` };
      const rounds = quick ? 1 : 7;
      const ours: Sample[] = [];
      const base: Sample[] = [];
      // One untimed open of each warms the compile cache and the page cache.
      await openOnce(server, env, cwd, "20250101-000000-0000");
      await openOnce(server, env, cwd, "20250101-000001-0000");
      for (let round = 0; round < rounds; round++) {
        const first = round % 2 === 0;
        if (first) ours.push(await openOnce(server, env, cwd, "20250101-000001-0000"));
        base.push(await openOnce(server, env, cwd, "20250101-000000-0000"));
        if (!first) ours.push(await openOnce(server, env, cwd, "20250101-000001-0000"));
      }
      return rows(small, huge, parts.length, ours, base);
    } finally {
      await server.close();
      if (existsSync(work)) rmSync(work, { recursive: true, force: true, maxRetries: 5 });
    }
  },
};

function rows(small: WrittenSession, huge: WrittenSession, compactions: number, ours: Sample[], base: Sample[]): BenchRow[] {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const count = (n: number) => n.toLocaleString("en-US");
  const sent = `requests carried ${count(median(ours.map((s) => s.messages)))} messages (huge) and ${count(median(base.map((s) => s.messages)))} (small)`;
  const time = comparison(
    ours.map((s) => s.ms),
    base.map((s) => s.ms),
  );
  const rss = comparison(
    ours.map((s) => s.peakRssMb),
    base.map((s) => s.peakRssMb),
  );
  const name = `kosong --resume -p: a ${mb(huge.bytes)} session (${count(huge.messages)} messages, ${compactions} compactions)`;
  const baseline = `the same for a ${mb(small.bytes)} session (${count(small.messages)} messages)`;
  return [
    toRow(`${name}, start → first request (ms)`, baseline, time, { goal: 2, note: sent }),
    toRow(`${name}, peak RSS at the first request (MB, in the ms columns)`, baseline, rss, { goal: 1.5, note: `peak RSS ${rss.ours_ms.toFixed(0)} MB vs ${rss.baseline_ms.toFixed(0)} MB` }),
  ];
}

export default benchmark;
