/**
 * Restore fuzzing: thousands of damaged files (random truncation, byte flips,
 * invalid UTF-8, shuffled, joined, split and duplicated lines, blank lines),
 * read with random buffer sizes. Restore never throws, keeps every intact
 * line, accounts for every line (a record or a reported skip), and never
 * modifies the file. Set KOSONG_FUZZ_SEED to replay a run.
 */
import { readFile, writeFile } from "node:fs/promises";
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, imageURLPart, textPart, thinkPart, toolCall, toolMessage, userMessage } from "@kosong/core";
import { JsonlLinearStorage, type SkippedLine } from "@kosong/context";
import { checkpointRecord, decodeRecordLine, encodeRecord, messageRecord, otherRecord, scanContextFile, systemPromptRecord, usageRecord, type ContextRecord, type ScannedRecord } from "@kosong/context/records";
import { seededRandom as random } from "./helpers/random.js";
import { tempDir } from "@kosong/test-support";

const seed = Number(process.env.KOSONG_FUZZ_SEED ?? Date.now() % 1_000_000);
const TRIALS = 3000;

const base: ContextRecord[] = [
  systemPromptRecord("You are Kimi. 你好。"),
  checkpointRecord(0),
  messageRecord(userMessage("Hello, 世界 😀")),
  usageRecord(150),
  messageRecord(assistantMessage([thinkPart("let me think", "c2ln"), textPart("Sure.")], [toolCall("call_1", "Shell", { command: "ls -la" })])),
  messageRecord(toolMessage("call_1", "a.py\nb.py")),
  messageRecord(userMessage([textPart("look"), imageURLPart("data:image/png;base64,iVBORw0KGgo=")])),
  messageRecord({ role: "assistant", content: [], tool_calls: [{ type: "function", id: "c2", function: { name: "Think", arguments: null } }] }),
  otherRecord({ role: "_meta", note: "ünïcödé" }),
  checkpointRecord(1),
  usageRecord(1260),
  messageRecord(userMessage("x".repeat(300))),
];
const baseLines = base.map((r) => Buffer.from(encodeRecord(r)));
const intactSet = new Set(baseLines.map((b) => b.toString("latin1")));

function damage(lines: Buffer[], rand: () => number): Buffer {
  const pick = (n: number) => Math.floor(rand() * n);
  let work = [...lines];
  const structural = pick(4);
  if (structural === 1) {
    for (let i = work.length - 1; i > 0; i -= 1) {
      const j = pick(i + 1);
      [work[i], work[j]] = [work[j]!, work[i]!];
    }
  } else if (structural === 2 && work.length > 0) {
    work.splice(pick(work.length + 1), 0, Buffer.from(["", "   ", "\r", "\t "][pick(4)]!));
  } else if (structural === 3 && work.length > 0) {
    work.splice(pick(work.length), 0, work[pick(work.length)]!);
  }
  let bytes = Buffer.concat(work.flatMap((l) => [l, Buffer.from("\n")]));
  const damages = 1 + pick(3);
  for (let d = 0; d < damages && bytes.length > 0; d += 1) {
    const at = pick(bytes.length);
    switch (pick(6)) {
      case 0:
        bytes = bytes.subarray(0, at);
        break;
      case 1:
        bytes = Buffer.from(bytes);
        for (let f = 0; f < 1 + pick(4); f += 1) bytes[pick(bytes.length)]! ^= 1 + pick(255);
        break;
      case 2: {
        const invalid = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]][pick(6)]!;
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(invalid), bytes.subarray(at)]);
        break;
      }
      case 3: {
        const newline = bytes.indexOf(10, at);
        if (newline !== -1) bytes = Buffer.concat([bytes.subarray(0, newline), bytes.subarray(newline + 1)]);
        break;
      }
      case 4:
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from("\n"), bytes.subarray(at)]);
        break;
      default:
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from("\n\n"), bytes.subarray(at)]);
    }
  }
  return bytes;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The lines of `bytes` at byte level: [start, end) without the newline, and whether a newline ends it. */
function splitLines(bytes: Buffer): Array<{ start: number; end: number; newline: boolean }> {
  const out: Array<{ start: number; end: number; newline: boolean }> = [];
  let pos = 0;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(10, pos);
    if (nl === -1) {
      out.push({ start: pos, end: bytes.length, newline: false });
      break;
    }
    out.push({ start: pos, end: nl, newline: true });
    pos = nl + 1;
  }
  return out;
}

describe(`restore fuzzing (seed ${seed})`, () => {
  it(`${TRIALS} damaged files: no crash, every intact line kept, every other line kept or reported`, async () => {
    const rand = random(seed);
    const dir = await tempDir();
    let skippedTotal = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const context = `trial ${trial}, seed ${seed}`;
      const count = 1 + Math.floor(rand() * 25);
      const chosen = Array.from({ length: count }, () => baseLines[Math.floor(rand() * baseLines.length)]!);
      const bytes = damage(chosen, rand);
      const file = path.join(dir, `fuzz-${trial % 8}.jsonl`);
      await writeFile(file, bytes);
      const chunkSize = rand() < 0.5 ? 16 + Math.floor(rand() * 200) : undefined;

      const records: ScannedRecord[] = [];
      const report = await scanContextFile(file, (s) => records.push(s), { chunkSize });
      const lines = splitLines(bytes);
      expect(report.lines, context).toBe(lines.length);
      expect(records.length + report.skipped.length, context).toBe(lines.length);
      skippedTotal += report.skipped.length;

      const byLine = new Map<number, ScannedRecord | SkippedLine>();
      for (const r of records) byLine.set(r.line, r);
      for (const s of report.skipped) byLine.set(s.line, s);
      lines.forEach((line, i) => {
        const entry = byLine.get(i + 1);
        expect(entry, `${context}, line ${i + 1}`).toBeDefined();
        expect(entry!.offset, `${context}, line ${i + 1}`).toBe(line.start);
        const raw = bytes.subarray(line.start, line.end);
        const intact = intactSet.has(raw.toString("latin1"));
        if (entry && "record" in entry) {
          expect(entry.end, context).toBe(line.newline ? line.end + 1 : line.end);
          const decoded = decodeRecordLine(raw.toString("utf8"));
          expect(decoded.ok && isUtf8(raw), `${context}, line ${i + 1} kept but not valid`).toBe(true);
          expect(entry.record, context).toEqual((decoded as { record: ContextRecord }).record);
          // An intact line is kept as exactly the record it was written from: writing it again gives its bytes.
          if (intact) expect(encodeRecord(entry.record), `${context}, line ${i + 1}`).toBe(raw.toString("utf8"));
        } else {
          expect(intact, `${context}, intact line ${i + 1} was skipped: ${JSON.stringify(entry)}`).toBe(false);
        }
        // Independently of the reader: a line that is not UTF-8, or not a JSON object, is never kept.
        if (!isUtf8(raw) || !isJsonObject(raw.toString("utf8"))) expect("record" in entry!, `${context}, line ${i + 1}`).toBe(false);
      });

      if (trial % 20 === 0) {
        const storage = new JsonlLinearStorage(file);
        await storage.restore();
        expect(storage.messages, context).toEqual(records.flatMap((r) => (r.record.kind === "message" ? [r.record.message] : [])));
        await storage.close();
        expect(await readFile(file), context).toEqual(bytes);
      }
    }
    expect(skippedTotal).toBeGreaterThan(TRIALS);
  });
});
