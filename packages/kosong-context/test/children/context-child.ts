/**
 * A child process for the lock and crash tests. It runs on the built package
 * (`@kosong/context` resolves to this package's dist by self-reference).
 *
 *   hold <file>                   open and lock, print "ready", close when stdin ends
 *   hold-append <file>            open, append, print "ready"; per stdin line: append, print "appended" or the
 *                                 error's name; close when stdin ends, print "closed"
 *   exit-without-close <file>     open, append, print "ready", process.exit(0)
 *   append <file> <durability>    append numbered records forever, printing "ack <seq>" per acknowledged record
 *   rotate <file> [large]         append, truncate-with-rotation and restore rotations forever, printing its steps
 *                                 (large: every other message has 256 KiB of text, so kept prefixes are MiBs)
 *   replace <file> [large]        append, then truncate-with-rotation writing records after the kept prefix (at 0:
 *                                 a compaction), forever; before each it prints "op replace <sha256 of the file>
 *                                 <sha256 of the prefix and the records> <size before> <size after>", then "done <n>"
 *   open <file>                   open for writing and close; print "opened", or the error's name and message
 *   read <file>                   readContextFile; print "read <records>", or the error's name and message
 *   modes <file>                  append, truncate with rotation, truncate writing records, prepend and restore
 *                                 rotations forever, printing "op <kind>" before each whole-file operation
 *   race -                        per stdin line "go <file> <µs>": spin that long, open <file>, print "won <file>" or
 *                                 "lost <file>"; per "release <file>": close it, print "released <file>"
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { JsonlContextFile, SessionLockedError, type Durability } from "@kosong/context";
import { checkpointRecord, encodeRecord, messageRecord, readContextFile, systemPromptRecord, usageRecord } from "@kosong/context/records";

const [command, file, arg] = process.argv.slice(2);
// The file-mode tests run children under another umask (e.g. 000, where a file created with the default mode is 0666).
if (process.env.CHILD_UMASK !== undefined) process.umask(Number.parseInt(process.env.CHILD_UMASK, 8));
const out = (text: string): void => void process.stdout.write(`${text}\n`);

function message(seq: number, large = false) {
  if (large) return messageRecord({ role: "user", content: [{ type: "text", text: `seq ${seq} ${"y".repeat(256 * 1024)}` }] });
  const pad = "x".repeat(50 + ((seq * 37) % (command === "rotate" ? 4000 : 400)));
  return messageRecord({ role: "user", content: [{ type: "text", text: `seq ${seq} ${pad} é😀` }] });
}

async function hold(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!);
  out("ready");
  process.stdin.resume();
  process.stdin.on("end", () => void ctx.close().then(() => process.exit(0)));
}

async function holdAppend(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!);
  await ctx.append([message(0)]);
  out("ready");
  let n = 1;
  const lines = createInterface({ input: process.stdin });
  lines.on("line", () => {
    ctx.append([message(n++)]).then(
      () => out("appended"),
      (error: unknown) => out(error instanceof Error ? error.name : String(error)),
    );
  });
  lines.on("close", () => void ctx.close().catch(() => undefined).then(() => (out("closed"), process.exit(0))));
}

async function exitWithoutClose(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!);
  await ctx.append([message(0)]);
  out("ready");
  process.exit(0);
}

async function append(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!, { durability: arg as Durability });
  out("ready");
  let seq = 0;
  for (let round = 0; ; round += 1) {
    // Concurrent single appends (every 4th round 32 large ones: a multi-MB batch that a kill can tear),
    // then one awaited multi-record append.
    const large = round % 4 === 3;
    const burst: Array<Promise<void>> = [];
    for (let i = 0; i < (large ? 32 : 5); i += 1) {
      const n = seq++;
      burst.push(ctx.append([message(n, large)]).then(() => out(`ack ${n}`)));
    }
    await Promise.all(burst);
    const a = seq++;
    const b = seq++;
    await ctx.append([message(a), usageRecord(a), message(b)]);
    out(`ack ${a}`);
    out(`ack ${b}`);
  }
}

async function rotate(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!, { durability: "batch" });
  out("ready");
  let seq = 0;
  let id = 0;
  for (let round = 1; ; round += 1) {
    const marks: number[] = [];
    for (let i = 0; i < 24; i += 1) {
      if (i % 6 === 0) marks.push((await ctx.append([checkpointRecord(id++)])).position);
      await ctx.append([message(seq++, arg === "large" && i % 2 === 0), message(seq++), usageRecord(seq)]);
    }
    const offset = marks[round % marks.length]!;
    // "op <kind> <size before> <size after>" ... "done": the current file must be wholly one or the other.
    out(`op truncate ${ctx.size} ${offset}`);
    const rotation = await ctx.truncateAndRotate(offset);
    out(`done ${rotation.n}`);
    if (round % 3 === 0) {
      const target = (await ctx.listRotations()).at(-2)!;
      out(`op restore ${ctx.size} ${target.size}`);
      await ctx.restoreRotation(target.n);
      out("done");
    }
  }
}

async function replace(): Promise<void> {
  const large = arg === "large";
  const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
  const ctx = await JsonlContextFile.open(file!, { durability: "batch" });
  out("ready");
  let seq = 0;
  let id = 0;
  for (let round = 1; ; round += 1) {
    const marks = [0];
    for (let i = 0; i < 12; i += 1) {
      if (i % 4 === 0) marks.push((await ctx.append([checkpointRecord(id++)])).position);
      await ctx.append([message(seq++, large && i % 2 === 0), message(seq++), usageRecord(seq)]);
    }
    const position = marks[round % marks.length]!;
    const records = [systemPromptRecord(`round ${round}`), checkpointRecord(id++), message(seq++, large), message(seq++), usageRecord(seq)];
    const old = await readFile(file!);
    const fresh = Buffer.concat([old.subarray(0, position), Buffer.from(records.map((r) => `${encodeRecord(r)}\n`).join(""))]);
    out(`op replace ${sha(old)} ${sha(fresh)} ${old.length} ${fresh.length}`);
    const truncation = await ctx.truncateAndRotate(position, records);
    out(`done ${truncation.n}`);
  }
}

async function modes(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!, { durability: "batch" });
  out("ready");
  let seq = 0;
  for (let round = 1; ; round += 1) {
    const mark = (await ctx.append([checkpointRecord(round)])).position;
    for (let i = 0; i < 8; i += 1) await ctx.append([message(seq++, arg === "large" && i % 4 === 0), usageRecord(seq)]);
    const step = round % 4;
    out(`op ${["restore", "truncate", "replace", "prepend"][step]}`);
    if (step === 0) await ctx.restoreRotation((await ctx.listRotations()).at(-1)!.n);
    else if (step === 1) await ctx.truncateAndRotate(mark);
    else if (step === 2) await ctx.truncateAndRotate(0, [systemPromptRecord(`round ${round}`), message(seq++)]);
    else await ctx.prepend([systemPromptRecord(`round ${round}`)]);
  }
}

/** Runs `attempt`, printing its outcome or the error it threw (for runs as another user, whose errors the parent cannot catch). */
async function report(attempt: () => Promise<string>): Promise<void> {
  out(await attempt().catch((error: Error) => `${error.name}: ${error.message}`));
}

async function race(): Promise<void> {
  const held = new Map<string, JsonlContextFile>();
  out("ready");
  for await (const line of createInterface({ input: process.stdin })) {
    const [verb, target, micros] = line.split(" ");
    if (verb === "release") {
      await held.get(target!)?.close();
      held.delete(target!);
      out(`released ${target}`);
      continue;
    }
    const until = process.hrtime.bigint() + BigInt(micros!) * 1000n;
    while (process.hrtime.bigint() < until);
    try {
      held.set(target!, await JsonlContextFile.open(target!));
      out(`won ${target}`);
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) throw error;
      out(`lost ${target}`);
    }
  }
}

const commands: Record<string, () => Promise<void>> = {
  hold,
  "hold-append": holdAppend,
  "exit-without-close": exitWithoutClose,
  append,
  rotate,
  replace,
  modes,
  race,
  open: () => report(async () => (await JsonlContextFile.open(file!)).close().then(() => "opened")),
  read: () => report(async () => `read ${(await readContextFile(file!)).report.records}`),
};

const run = commands[command ?? ""];
if (!run || !file) {
  process.stderr.write("usage: context-child.ts <hold|exit-without-close|append|rotate|replace|modes|race|open|read> <file> [arg]\n");
  process.exit(2);
}
run().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
