/**
 * Crash safety with real processes: a child appends (or truncates with
 * rotation, or truncates writing records after the kept prefix) on the built package and is SIGKILLed at a random moment. After
 * each kill the file must restore, hold every acknowledged append, lose
 * nothing but a torn last line, and reopen cleanly for writing.
 * Set KOSONG_CRASH_SEED to replay a run.
 */
import { createHash } from "node:crypto";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { JsonlContextFile, type Durability, type LogRotationInfo } from "@kosong/context";
import { messageRecord, readContextFile } from "@kosong/context/records";
import { assertDistIsFresh, startChild, type Child } from "./helpers/child.js";
import { seededRandom as random } from "./helpers/random.js";
import { tempDir } from "@kosong/test-support";

const seed = Number(process.env.KOSONG_CRASH_SEED ?? Date.now() % 1_000_000);
/** Kills per durability mode (3 modes) and kills of the rotating child (small records, then large ones). */
const APPEND_TRIALS = 20;
const ROTATION_TRIALS = { small: 50, large: 20, "large, no hard links": 20 };
/** Kills of the child that truncates with records (a compaction, a revert and what follows it). */
const REPLACE_TRIALS = { small: 40, large: 20, "large, no hard links": 16 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function seqOf(text: string): number {
  const match = /^seq (\d+) /.exec(text);
  if (!match) throw new Error(`unexpected message text ${text.slice(0, 40)}`);
  return Number(match[1]);
}

/** Runs `trial` for 0..count-1, two at a time. */
async function inPairs(count: number, trial: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i += 2) await Promise.all([trial(i), ...(i + 1 < count ? [trial(i + 1)] : [])]);
}

/**
 * SIGKILLs a child that prints "op ..." before each whole-file operation,
 * once it is ready: in even trials up to `aimMs` after its 1st to 3rd "op"
 * line (aimed at an operation), in odd ones after a random delay up to `maxDelayMs`.
 */
async function killDuringOps(child: Child, trial: number, rand: () => number, delays: { aimMs: number; maxDelayMs: number }, context: string): Promise<void> {
  await child.waitFor((l) => l === "ready");
  if (trial % 2 === 0) {
    const nth = 1 + Math.floor(rand() * 3);
    let seen = 0;
    await child.waitFor((l) => l.startsWith("op ") && ++seen === nth);
    await sleep(Math.floor(rand() * delays.aimMs));
  } else {
    await sleep(Math.floor(rand() * delays.maxDelayMs));
  }
  child.process.kill("SIGKILL");
  const exit = await child.exited;
  expect(exit.signal, `${context}: ${child.stderr()}`).toBe("SIGKILL");
}

/** The current file after a kill: readable, and damaged at most by a torn last line. */
async function expectIntactButForTornTail(file: string, context: string) {
  const state = await readContextFile(file);
  const skipped = state.report.skipped;
  expect(skipped.length, `${context}: ${JSON.stringify(skipped)}`).toBeLessThanOrEqual(1);
  if (skipped.length === 1) {
    expect(skipped[0], context).toMatchObject({ kind: "torn", line: state.report.lines });
    expect(state.report.endsWithNewline, context).toBe(false);
  }
  return state;
}

/** Reopening takes over the stale lock, cleans up, and appends on a fresh line. */
async function expectReopensForWriting(file: string, context: string): Promise<void> {
  const before = await readContextFile(file);
  const ctx = await JsonlContextFile.open(file);
  const names = await readdir(path.dirname(file));
  expect(names.filter((n) => n.includes(".tmp-")), context).toEqual([]);
  expect((await stat(file).catch(() => ({ nlink: 1 }))).nlink, context).toBe(1);
  await ctx.append([messageRecord({ role: "user", content: [{ type: "text", text: "seq 999999 after the crash" }] })]);
  const after = await ctx.read();
  await ctx.close();
  expect(after.messages.length, context).toBe(before.messages.length + 1);
  expect(after.messages.at(-1)!.content[0], context).toEqual({ type: "text", text: "seq 999999 after the crash" });
}

describe(`crash safety (seed ${seed})`, () => {
  beforeAll(assertDistIsFresh);

  for (const durability of ["always", "batch", "none"] satisfies Durability[]) {
    it(`appends under "${durability}": every acknowledged append survives SIGKILL, only a torn last line is lost`, async () => {
      const rand = random(seed + durability.length);
      let tornTails = 0;
      await inPairs(APPEND_TRIALS, async (trial) => {
        const context = `durability ${durability}, trial ${trial}, seed ${seed}`;
        const file = path.join(await tempDir(), "context.jsonl");
        const child = startChild(["append", file, durability]);
        await child.waitFor((l) => l === "ready");
        await sleep(Math.floor(rand() * 150));
        child.process.kill("SIGKILL");
        const exit = await child.exited;
        expect(exit.signal, `${context}: ${child.stderr()}`).toBe("SIGKILL");

        const acked = child.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
        const state = await expectIntactButForTornTail(file, context);
        if (state.report.skipped.length > 0) tornTails += 1;
        const seqs = state.messages.map((m) => seqOf((m.content[0] as { text: string }).text));
        // The file holds exactly the first N records, in order: nothing reordered, nothing lost in between.
        expect(seqs, context).toEqual(seqs.map((_, i) => i));
        for (const n of acked) expect(n, context).toBeLessThan(seqs.length);
        await expectReopensForWriting(file, context);
      });
      // Informational: how many kills tore a line (not asserted: it depends on timing).
      console.info(`crash/${durability}: ${APPEND_TRIALS} kills, ${tornTails} torn last lines`);
    }, 120_000);
  }

  // Large: kept prefixes of MiBs, so kills land inside the prefix copy. No hard links: rotations are copies
  // (written under a temp name, then renamed), so kills land inside those copies too.
  for (const records of ["small", "large", "large, no hard links"] as const) {
    it(`truncate-with-rotation and restoring rotations (${records} records): the current file is wholly old or wholly new, rotations complete`, async () => {
      const rand = random(seed + 7 + records.length);
      let insideOps = 0;
      await inPairs(ROTATION_TRIALS[records], async (trial) => {
        const context = `rotation trial ${trial} (${records}), seed ${seed}`;
        const file = path.join(await tempDir(), "context.jsonl");
        const child = startChild(["rotate", file, ...(records === "small" ? [] : ["large"])], { noHardLinks: records.endsWith("no hard links") });
        await killDuringOps(child, trial, rand, { aimMs: 3, maxDelayMs: 120 }, context);

        await expectIntactButForTornTail(file, context);
        // Listed through a handle without the lock: opening it recovers nothing, so the crash's leftovers stay as they are.
        const rotations = await listRotationsOf(file);
        // Every rotation is the whole file as it was when an operation began: never empty, never partial.
        const sizesAtOps = new Set(child.lines.filter((l) => l.startsWith("op ")).map((l) => Number(l.split(" ")[2])));
        for (const rotation of rotations) {
          const state = await readContextFile(rotation.location);
          expect(state.report.skipped, `${context}: rotation ${rotation.n}`).toEqual([]);
          expect(state.report.endsWithNewline, `${context}: rotation ${rotation.n}`).toBe(true);
          expect(sizesAtOps.has(rotation.size), `${context}: rotation ${rotation.n} has ${rotation.size} bytes`).toBe(true);
        }
        const lastOp = child.lines.findLast((l) => l.startsWith("op ") || l.startsWith("done"));
        if (lastOp?.startsWith("op ")) {
          insideOps += 1;
          const [, kind, before, after] = lastOp.split(" ");
          const size = (await stat(file)).size;
          expect([Number(before), Number(after)], `${context}: ${lastOp}, size ${size}`).toContain(size);
          if (kind === "truncate" && size === Number(after) && size !== Number(before)) {
            const newest = rotations.at(-1)!;
            const old = await readFile(newest.location);
            expect(old.length, context).toBe(Number(before));
            // Buffer.equals: toEqual is slow on the large records' MiBs.
            expect((await readFile(file)).equals(old.subarray(0, size)), context).toBe(true);
          }
        }
        const rotationBytes = await Promise.all(rotations.map((r) => readFile(r.location)));
        await expectReopensForWriting(file, context);
        // Writing to the current file never changes a rotation.
        const after = await Promise.all(rotations.map((r) => readFile(r.location)));
        expect(after.map((bytes, i) => bytes.equals(rotationBytes[i]!)), context).toEqual(rotationBytes.map(() => true));
      });
      console.info(`crash/rotation (${records}): ${ROTATION_TRIALS[records]} kills, ${insideOps} inside a whole-file operation`);
    }, 180_000);
  }

  for (const records of ["small", "large", "large, no hard links"] as const) {
    it(`truncate-with-rotation writing records (${records} records): the file is wholly the old content or wholly the prefix and the records, rotations complete`, async () => {
      const rand = random(seed + 11 + records.length);
      const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
      let insideOps = 0;
      let replaced = 0;
      await inPairs(REPLACE_TRIALS[records], async (trial) => {
        const context = `replace trial ${trial} (${records}), seed ${seed}`;
        const file = path.join(await tempDir(), "context.jsonl");
        const child = startChild(["replace", file, ...(records === "small" ? [] : ["large"])], { noHardLinks: records.endsWith("no hard links") });
        // Aimed up to 8 ms after the announcement, so that some kills land after the rename too.
        await killDuringOps(child, trial, rand, { aimMs: 8, maxDelayMs: 150 }, context);

        // "op replace <old sha> <new sha> <old size> <new size>": every file the child replaced, and what it replaced it with.
        const ops = child.lines.filter((l) => l.startsWith("op ")).map((l) => l.split(" "));
        const oldHashes = new Set(ops.map((op) => op[2]));
        const rotations = await listRotationsOf(file);
        for (const rotation of rotations) {
          expect(oldHashes.has(sha(await readFile(rotation.location))), `${context}: rotation ${rotation.n} is not a whole earlier file`).toBe(true);
        }
        const lastOp = child.lines.findLast((l) => l.startsWith("op ") || l.startsWith("done"));
        if (lastOp?.startsWith("op ")) {
          insideOps += 1;
          const [, , oldHash, newHash] = lastOp.split(" ");
          const current = sha(await readFile(file));
          expect([oldHash, newHash], `${context}: the file is neither the old content nor the prefix and the records`).toContain(current);
          if (current === newHash) {
            replaced += 1;
            // Renamed into place only after the old file was kept: the newest rotation is it, whole.
            expect(rotations.length, context).toBe(ops.length);
            expect(sha(await readFile(rotations.at(-1)!.location)), context).toBe(oldHash);
          }
        } else {
          await expectIntactButForTornTail(file, context);
        }
        const rotationBytes = await Promise.all(rotations.map((r) => readFile(r.location)));
        await expectReopensForWriting(file, context);
        const after = await Promise.all(rotations.map((r) => readFile(r.location)));
        expect(after.map((bytes, i) => bytes.equals(rotationBytes[i]!)), context).toEqual(rotationBytes.map(() => true));
      });
      console.info(`crash/replace (${records}): ${REPLACE_TRIALS[records]} kills, ${insideOps} inside a truncation with records, ${replaced} of them after its rename`);
    }, 180_000);
  }
});

async function listRotationsOf(file: string): Promise<LogRotationInfo[]> {
  const probe = await JsonlContextFile.open(file, { lock: false });
  try {
    return await probe.listRotations();
  } finally {
    await probe.close();
  }
}
