/**
 * A child process for the lock and crash tests. It runs on the built package
 * (`@kosong/context` resolves to this package's dist by self-reference).
 *
 *   hold <file>                   open and lock, print "ready", close when stdin ends
 *   exit-without-close <file>     open, append, print "ready", process.exit(0)
 *   append <file> <durability>    append numbered records forever, printing "ack <seq>" per acknowledged record
 *   rotate <file>                 append, truncate-with-rotation and restore rotations forever, printing its steps
 */
import { JsonlContextFile, checkpointRecord, messageRecord, usageRecord, type Durability } from "@kosong/context";

const [command, file, arg] = process.argv.slice(2);
const out = (text: string) => process.stdout.write(`${text}\n`);

function message(seq: number) {
  const pad = "x".repeat(50 + ((seq * 37) % 400));
  return messageRecord({ role: "user", content: [{ type: "text", text: `seq ${seq} ${pad} é😀` }] });
}

async function hold(): Promise<void> {
  const ctx = await JsonlContextFile.open(file!);
  out("ready");
  process.stdin.resume();
  process.stdin.on("end", () => void ctx.close().then(() => process.exit(0)));
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
  for (;;) {
    // A burst of concurrent single appends, then one awaited multi-record append.
    const burst: Array<Promise<void>> = [];
    for (let i = 0; i < 5; i += 1) {
      const n = seq++;
      burst.push(ctx.append([message(n)]).then(() => out(`ack ${n}`)));
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
  for (;;) {
    const marks: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      if (i % 8 === 0) marks.push((await ctx.append([checkpointRecord(id++)])).offset);
      const batch = [message(seq++), message(seq++), usageRecord(seq)];
      await ctx.append(batch);
    }
    const offset = marks[seq % marks.length]!;
    out(`rotating ${ctx.size} ${offset}`);
    const rotation = await ctx.truncateAndRotate(offset);
    out(`rotated ${rotation.n}`);
    if (rotation.n % 3 === 0) {
      const restored = await ctx.restoreRotation(rotation.n - 1);
      out(`restored ${restored.restored.n} ${restored.savedAs?.n ?? 0}`);
    }
  }
}

const commands: Record<string, () => Promise<void>> = {
  hold,
  "exit-without-close": exitWithoutClose,
  append,
  rotate,
};

const run = commands[command ?? ""];
if (!run || !file) {
  process.stderr.write("usage: context-child.ts <hold|exit-without-close|append|rotate> <file> [arg]\n");
  process.exit(2);
}
run().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
