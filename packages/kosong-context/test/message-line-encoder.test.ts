/**
 * The message line encoder: the UTF-8 bytes of `serializeMessage(message)`,
 * written without building the string (WebAssembly SIMD escaping and UTF-8
 * encoding), and its fallback.
 *
 * White-box exception: the encoder is internal (not exported from
 * @kosong/context), so this file imports package internals by relative path
 * (as does direct-copy.test.ts, for the direct copy): ../src/message-line-encoder.js,
 * ../src/byte-queue.js, the generated ../src/json-escape-wasm.js and the
 * build script ../scripts/build-wasm.js that compiles the .wat.
 *
 * The property test is seeded: set KOSONG_FUZZ_SEED to replay a run.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serializeMessage, type ContentPart, type JsonValue, type Message, type Role, type ToolCall } from "@kosong/core";
import { decodeRecordLine } from "@kosong/context/records";
import { compileJsonEscapeWat } from "../scripts/build-wasm.js";
import { ByteQueue } from "../src/byte-queue.js";
import { jsonEscapeWasm } from "../src/json-escape-wasm.js";
import {
  ENCODER_MEMORY_BYTES,
  STRING_SLICE,
  createMessageLineEncoder,
  messageLineEncoder,
  type ByteSink,
  type MessageLineEncoder,
} from "../src/message-line-encoder.js";
import { fixture } from "./helpers/fixtures.js";
import { seededRandom } from "./helpers/random.js";

const wasm = createMessageLineEncoder();
const fallback = createMessageLineEncoder({ wasm: false });
const encoders = [wasm, fallback];

/** The bytes `encoder` pushes for `message` (through a ByteQueue, as the context file will), checking the returned count. */
function encoded(encoder: MessageLineEncoder, message: Message, line = false): Buffer {
  const queue = new ByteQueue();
  const count = line ? encoder.encodeLine(message, queue) : encoder.encode(message, queue);
  expect(queue.length).toBe(count);
  return Buffer.concat(queue.take(count));
}

function expectSameBytes(got: Buffer, want: Buffer, what: string): void {
  if (got.equals(want)) return;
  let at = 0;
  while (at < got.length && at < want.length && got[at] === want[at]) at += 1;
  const around = (b: Buffer) => JSON.stringify(b.subarray(Math.max(0, at - 40), at + 40).toString("latin1"));
  expect.fail(`${what}: bytes differ at ${at} of ${want.length} (got ${got.length})\n got  ${around(got)}\n want ${around(want)}`);
}

function expectEncodesLikeSerialize(encoder: MessageLineEncoder, message: Message, what: string): void {
  const want = Buffer.from(serializeMessage(message), "utf8");
  expectSameBytes(encoded(encoder, message), want, what);
  expectSameBytes(encoded(encoder, message, true), Buffer.concat([want, Buffer.from("\n")]), `${what} (line)`);
}

describe("the embedded WebAssembly", () => {
  it("is src/wasm/json-escape.wat compiled (run `pnpm run build:wasm` after editing the .wat)", async () => {
    expect(Buffer.from(jsonEscapeWasm).equals(Buffer.from(await compileJsonEscapeWat()))).toBe(true);
  });

  it("runs on this Node: the encoder of the process is the wasm one, created once", () => {
    expect(wasm.kind).toBe("wasm");
    expect(messageLineEncoder()).toBe(messageLineEncoder());
    expect(messageLineEncoder().kind).toBe("wasm");
    expect(fallback.kind).toBe("fallback");
    expect(fallback.memoryBytes).toBe(0);
  });
});

describe.each(encoders.map((e) => [e.kind, e] as const))("%s encoder", (_, encoder) => {
  it("writes every message line of the kimi-cli session fixtures as serializeMessage does", () => {
    const root = fixture("kimi-cli-sessions");
    let messages = 0;
    for (const folder of readdirSync(root, { withFileTypes: true })) {
      if (!folder.isDirectory()) continue;
      for (const file of readdirSync(path.join(root, folder.name)).filter((f) => f.endsWith(".jsonl"))) {
        const lines = readFileSync(path.join(root, folder.name, file), "utf8").split("\n");
        lines.forEach((line, i) => {
          const decoded = decodeRecordLine(line);
          if (!decoded.ok || decoded.record.kind !== "message") return;
          expectEncodesLikeSerialize(encoder, decoded.record.message, `${folder.name}/${file}:${i + 1}`);
          messages += 1;
        });
      }
    }
    // basic, agent-turns, revert-and-dmail, clear, corrupt-lines and kosong-linear hold this many message lines.
    expect(messages).toBeGreaterThanOrEqual(40);
  });

  it("writes the omission rules of serializeMessage: single text as a string, null encrypted and id kept, null arguments and null fields dropped", () => {
    const call = (id: string, fn: Record<string, unknown>, extras?: Record<string, JsonValue>): ToolCall =>
      ({ type: "function", id, function: fn, ...(extras ? { extras } : {}) }) as unknown as ToolCall;
    const cases: Message[] = [
      { role: "user", content: [] },
      { role: "user", content: [{ type: "text", text: "" }] },
      { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      { role: "assistant", content: [{ type: "think", think: "t" }, { type: "think", think: "u", encrypted: null }, { type: "think", think: "v", encrypted: "sig" }] },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }, { type: "audio_url", audio_url: { url: "a.mp3", id: null } }, { type: "video_url", video_url: { url: "v.mp4", id: "vid" } }] },
      { role: "assistant", content: [], tool_calls: [call("c1", { name: "Think" }), call("c2", { name: "Shell", arguments: null }), call("c3", { name: "Shell", arguments: '{"command":"ls"}' }, { a: { b: [1, "x\n", null, { c: "😀" }] } })] },
      { role: "assistant", content: [{ type: "text", text: "x" }], tool_calls: [] },
      { role: "tool", content: [{ type: "text", text: "out" }], tool_call_id: "c3", name: "Shell", partial: false },
      { role: "assistant", content: [{ type: "text", text: "cut" }], partial: true },
      { role: "system", content: [{ type: "text", text: "s" }], name: undefined, tool_call_id: null, partial: null } as unknown as Message,
    ];
    cases.forEach((m, i) => expectEncodesLikeSerialize(encoder, m, `case ${i}`));
  });

  it("escapes every control character, quote, backslash, slash and DEL as JSON.stringify does, lone surrogates included", () => {
    const all = Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)).join("");
    for (const text of [all, `${all}\u00e9\u4e2d\u{1f600}`, "\ud800", "a\udc00b", `${"x".repeat(40)}\ud83d`, "\ud83d\ude00\ude00\ud83d"]) {
      expectEncodesLikeSerialize(encoder, { role: "user", content: [{ type: "text", text }] }, JSON.stringify(text));
    }
  });
});

describe("block and slice edges", () => {
  it("writes any character at every position of strings of 0 to 48 units of ASCII, 2-byte or 3-byte characters or pairs", () => {
    const odd = ['"', "\\", "\n", "\u0001", "\u001f", "\u007f", "\u0080", "\u00ff", "\u07ff", "\u0800", "\u4e2d", "\ud7ff", "\ue000", "\uffff", "\u{1f600}", "\ud800", "\udfff", "a"];
    for (const fill of ["a", "\u00e9", "\u4e2d", "\u{1f600}"]) {
      const content: ContentPart[] = [];
      for (let length = 0; length <= 48; length += 1) {
        const before = fill.repeat(length);
        content.push({ type: "text", text: before });
        for (let at = 0; at < length; at += fill.length) {
          for (const char of odd) content.push({ type: "text", text: `${before.slice(0, at)}${char}${before.slice(at + fill.length)}` });
        }
      }
      for (const encoder of encoders) expectEncodesLikeSerialize(encoder, { role: "user", content }, `${encoder.kind}, in ${fill}`);
    }
  });

  it("slices long strings without splitting a surrogate pair, whatever side of the slice boundary it falls on", () => {
    for (const offset of [-2, -1, 0, 1]) {
      const text = `${"a".repeat(STRING_SLICE + offset)}\u{1f600}\n${"\u4e2d".repeat(STRING_SLICE)}"`;
      expectEncodesLikeSerialize(wasm, { role: "tool", content: [{ type: "text", text }], tool_call_id: "c" }, `pair at ${STRING_SLICE + offset}`);
    }
  });

  it("escapes lone surrogates of long strings at the slice boundary and at the end as JSON.stringify does", () => {
    for (const [what, text] of [
      ["high, then not low, across the boundary", `${"a".repeat(STRING_SLICE - 1)}\ud83dx${"b".repeat(100)}`],
      ["low at the start of a slice", `${"a".repeat(STRING_SLICE)}\ude00${"b".repeat(100)}`],
      ["high as the last unit", `${"\u4e2d".repeat(STRING_SLICE + 5)}\ud83d`],
      ["low as the last unit", `${"\u00e9".repeat(2 * STRING_SLICE)}\udfff`],
    ] as const) {
      expectEncodesLikeSerialize(wasm, { role: "user", content: [{ type: "text", text }] }, what);
    }
  });
});

const seed = Number(process.env.KOSONG_FUZZ_SEED ?? Date.now() % 1_000_000);

/** Random messages of every shape, with strings built to hit the encoder's edges. */
function messageGenerator(rand: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const int = (n: number) => Math.floor(rand() * n);
  const controls = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c));
  const specials = [...controls, '"', "\\", "/", "\x7f"];
  const threeBytes = () => String.fromCharCode(pick([0x800, 0xd7ff, 0xe000, 0xffff, 0x4e00 + int(0x5000), 0x800 + int(0xd000), 0xe000 + int(0x2000)]));
  const units = [
    () => String.fromCharCode(0x20 + int(0x5f)), // printable ASCII
    () => pick(specials),
    () => String.fromCharCode(0x80 + int(0x80)), // Latin-1
    () => String.fromCharCode(0x100 + int(0x700)), // other 2-byte characters
    () => Array.from({ length: 1 + int(20) }, threeBytes).join(""), // a run of 3-byte characters (CJK, ...)
    () => String.fromCodePoint(0x10000 + int(0x100000)), // astral: a surrogate pair
    () => String.fromCharCode(0xd800 + int(0x400)), // lone high surrogate
    () => String.fromCharCode(0xdc00 + int(0x400)), // lone low surrogate
  ];
  const weights = [40, 8, 3, 2, 4, 3, 1, 1];
  const total = weights.reduce((a, b) => a + b, 0);
  const unit = (loneSurrogates: boolean) => {
    for (;;) {
      let r = int(total);
      let i = 0;
      while (r >= weights[i]!) r -= weights[i++]!;
      if (!loneSurrogates && i >= 6) continue;
      return units[i]!();
    }
  };
  const short = (length: number, loneSurrogates = rand() < 0.2) => {
    let s = "";
    while (s.length < length) s += unit(loneSurrogates);
    return s;
  };
  /** Over the slice size, with a surrogate pair across the slice boundary and specials around 16-byte block edges. */
  const long = () => {
    const base = short(200 + int(3000), false);
    let s = base.repeat(Math.ceil((STRING_SLICE + 1 + int(STRING_SLICE)) / base.length));
    const at = (i: number, text: string) => (s = s.slice(0, i) + text + s.slice(i + text.length));
    at(STRING_SLICE - 1, "\u{1f600}");
    for (const edge of [15, 16, 17, STRING_SLICE - 17, STRING_SLICE - 16, STRING_SLICE - 3, STRING_SLICE + 1 + 15, STRING_SLICE + 1 + 16]) at(edge, pick(specials));
    // Splicing may have cut a pair of the base next to an insert: mend it (U+FFFD), unless a lone surrogate is wanted.
    s = (s as string & { toWellFormed(): string }).toWellFormed();
    if (rand() < 0.3) at(int(s.length), pick(["\ud800", "\udfff"]));
    return s;
  };
  const str = (): string => {
    const r = rand();
    if (r < 0.05) return "";
    if (r < 0.6) return short(int(40));
    if (r < 0.985) return short(40 + int(400));
    return long();
  };
  const json = (depth: number): JsonValue => {
    switch (depth > 2 ? int(4) : int(6)) {
      case 0:
        return str();
      case 1:
        return rand() < 0.5 ? int(1000) - 500 : rand();
      case 2:
        return rand() < 0.5;
      case 3:
        return null;
      case 4:
        return Array.from({ length: int(4) }, () => json(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(4) }, () => [str(), json(depth + 1)]));
    }
  };
  const nullish = <T>(value: () => T): T | null | undefined => {
    const r = rand();
    return r < 0.2 ? null : r < 0.4 ? undefined : value();
  };
  const part = (): ContentPart => {
    switch (int(5)) {
      case 0:
        return { type: "text", text: str() };
      case 1: {
        const p: ContentPart = { type: "think", think: str() };
        const encrypted = nullish(str);
        if (encrypted !== undefined || rand() < 0.5) p.encrypted = encrypted as string | null;
        return p;
      }
      default: {
        const media = { url: str(), ...(rand() < 0.5 ? { id: nullish(str) } : {}) } as { url: string; id?: string | null };
        return pick([
          { type: "image_url", image_url: media },
          { type: "audio_url", audio_url: media },
          { type: "video_url", video_url: media },
        ] as const);
      }
    }
  };
  const toolCall = (): ToolCall => {
    const fn: Record<string, unknown> = { name: str() };
    const args = rand() < 0.2 ? null : rand() < 0.2 ? undefined : rand() < 0.5 ? JSON.stringify(json(0)) : str();
    if (args !== undefined) fn.arguments = args;
    const call = { type: "function", id: str(), function: fn } as unknown as ToolCall;
    if (rand() < 0.3) call.extras = Object.fromEntries(Array.from({ length: 1 + int(3) }, () => [str(), json(1)]));
    return call;
  };
  return (): Message => {
    // Null and undefined fields too: serializeMessage omits both.
    const m: Record<string, unknown> = {
      role: pick<Role>(["system", "user", "assistant", "tool"]),
      content: rand() < 0.4 ? [{ type: "text", text: str() }] : Array.from({ length: int(5) }, part),
    };
    if (rand() < 0.3) m.name = nullish(str);
    if (rand() < 0.4) m.tool_calls = Array.from({ length: int(4) }, toolCall);
    if (rand() < 0.3) m.tool_call_id = nullish(str);
    if (rand() < 0.3) m.partial = pick([true, false, null, undefined]);
    return m as unknown as Message;
  };
}

describe(`random messages (seed ${seed})`, () => {
  it("encode to the bytes of serializeMessage, with the wasm encoder (3,000 messages) and the fallback (500)", () => {
    const next = messageGenerator(seededRandom(seed));
    for (let i = 0; i < 3000; i += 1) {
      const message = next();
      const want = Buffer.from(serializeMessage(message), "utf8");
      const what = `message ${i}, seed ${seed}`;
      expectSameBytes(encoded(wasm, message), want, what);
      if (i < 500) expectSameBytes(encoded(fallback, message, true), Buffer.concat([want, Buffer.from("\n")]), `${what} (fallback)`);
    }
  });
});

/** A sink that keeps a copy of every push. */
function recordingSink(): ByteSink & { pushes: Buffer[] } {
  const pushes: Buffer[] = [];
  return { pushes, pushBytes: (bytes) => void pushes.push(Buffer.from(bytes)) };
}

describe("memory", () => {
  it(`stays at ${ENCODER_MEMORY_BYTES / 1024} KiB (under 1 MiB) for a message with a 40 MB string, handed to the sink in bounded pieces`, () => {
    const encoder = createMessageLineEncoder();
    expect(encoder.memoryBytes).toBe(ENCODER_MEMORY_BYTES);
    expect(encoder.memoryBytes).toBeLessThanOrEqual(1024 * 1024);
    const block = `line "one"\tand\\two\n${"é中😀".repeat(5)}${"x".repeat(300)}\u0001`;
    const big = block.repeat(Math.ceil(40_000_000 / block.length));
    // Long strings with lone surrogates, in the middle and at the very end.
    const lone = `${"y\u{1f600}".repeat(STRING_SLICE)}\udc00${"z\u4e2d".repeat(STRING_SLICE)}\ud800`;
    const message: Message = { role: "assistant", content: [{ type: "think", think: big, encrypted: lone }, { type: "text", text: "after" }] };
    const sink = recordingSink();
    const count = encoder.encodeLine(message, sink);
    const got = Buffer.concat(sink.pushes);
    expect(got.length).toBe(count);
    expectSameBytes(got, Buffer.from(`${serializeMessage(message)}\n`, "utf8"), "40 MB message");
    expect(encoder.memoryBytes).toBe(ENCODER_MEMORY_BYTES);
    expect(sink.pushes.length).toBeGreaterThan(40_000_000 / ENCODER_MEMORY_BYTES);
    expect(Math.max(...sink.pushes.map((p) => p.length))).toBeLessThanOrEqual(ENCODER_MEMORY_BYTES);
  });

  it("hands a small message to the sink in one piece, whose view is reused for the next message", () => {
    const views: Uint8Array[] = [];
    const sink: ByteSink = { pushBytes: (bytes) => void views.push(bytes) };
    wasm.encodeLine({ role: "user", content: [{ type: "text", text: "first message" }] }, sink);
    wasm.encodeLine({ role: "user", content: [{ type: "text", text: "second" }] }, sink);
    expect(views).toHaveLength(2);
    // The first view now shows the second message's bytes: a sink must copy, as ByteQueue does.
    expect(Buffer.from(views[0]!.subarray(0, views[1]!.length)).equals(Buffer.from(views[1]!))).toBe(true);
  });
});

describe("misuse", () => {
  it("a sink that calls the encoder back gets an error; the encoder keeps working", () => {
    const message: Message = { role: "user", content: [{ type: "text", text: "hi" }] };
    const sink: ByteSink = { pushBytes: () => void wasm.encode(message, new ByteQueue()) };
    expect(() => wasm.encode(message, sink)).toThrow(/while encoding/);
    expectEncodesLikeSerialize(wasm, message, "after the error");
  });

  it("extras that JSON cannot hold throw as in serializeMessage, before any byte of the line reaches the sink", () => {
    const message: Message = {
      role: "assistant",
      content: [{ type: "text", text: "x".repeat(2 * ENCODER_MEMORY_BYTES) }],
      tool_calls: [{ type: "function", id: "c", function: { name: "f", arguments: null }, extras: { n: 1n } as unknown as Record<string, JsonValue> }],
    };
    expect(() => serializeMessage(message)).toThrow(TypeError);
    const sink = recordingSink();
    expect(() => wasm.encodeLine(message, sink)).toThrow(TypeError);
    expect(sink.pushes).toHaveLength(0);
  });

  it("an invalid message throws a TypeError; the encoder keeps working", () => {
    expect(() => wasm.encode({ role: "user" } as Message, new ByteQueue())).toThrow(TypeError);
    expectEncodesLikeSerialize(wasm, { role: "user", content: [{ type: "text", text: "ok" }] }, "after the error");
  });
});

describe("ByteQueue.pushBytes", () => {
  it("copies the bytes in, across chunks and between lines, and takes them back in order", () => {
    const queue = new ByteQueue();
    const expected: Buffer[] = [];
    const source = Buffer.alloc(700_000);
    for (let i = 0; i < source.length; i += 1) source[i] = (i * 7) & 0xff;
    const pieces = [source.subarray(0, 10), source.subarray(10, 300_010), source.subarray(300_010, 300_020), source.subarray(300_020)];
    for (const [i, piece] of pieces.entries()) {
      queue.pushBytes(piece);
      expected.push(Buffer.from(piece));
      const line = `line ${i} é`;
      queue.pushLine(line);
      expected.push(Buffer.from(`${line}\n`));
    }
    queue.pushBytes(new Uint8Array(0));
    source.fill(0); // the queue holds copies
    const all = Buffer.concat(expected);
    expect(queue.length).toBe(all.length);
    const first = Buffer.concat(queue.take(123_457));
    queue.pushBytes(Buffer.from("tail"));
    const rest = Buffer.concat(queue.take(queue.length));
    expect(Buffer.concat([first, rest]).equals(Buffer.concat([all, Buffer.from("tail")]))).toBe(true);
    expect(queue.length).toBe(0);
  });
});
