/**
 * Encodes a message's JSONL line straight to UTF-8 bytes, byte-identical to
 * `serializeMessage(message)` (@kosong/core) encoded as UTF-8, without
 * building the JSON string: the keys are constant bytes, short ASCII values
 * are copied by a JS loop, and other string values are copied into
 * WebAssembly memory as UTF-16 (a plain copy in Node) and turned into
 * escaped UTF-8 by a small WebAssembly SIMD routine
 * (src/wasm/json-escape.wat), several times faster than JSON.stringify's
 * string escaping plus UTF-8 encoding. Lone surrogates come out as
 * JSON.stringify writes them (`\udxxx`).
 *
 * The bytes go to a {@link ByteSink} (`ByteQueue` is one). The encoder works
 * in a fixed WebAssembly memory of {@link ENCODER_MEMORY_BYTES} that never
 * grows: strings longer than {@link STRING_SLICE} UTF-16 units are encoded in
 * slices (never splitting a surrogate pair), and the scratch output is
 * handed to the sink whenever the next write might not fit, so a message of
 * any size takes the same memory (and the sink receives it in several calls).
 *
 * Where WebAssembly SIMD is unavailable, the encoder is a fallback with the
 * same contract: `serializeMessage` then UTF-8.
 */
import { serializeMessage, type ContentPart, type Message, type ToolCall } from "@kosong/core";
import { jsonEscapeWasm } from "./json-escape-wasm.js";

// The package's lib (ES2023, no DOM) does not declare WebAssembly.
/** The part of the WebAssembly JS API used here. */
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
};

/** Where an encoder puts bytes. */
export interface ByteSink {
  /**
   * Takes a copy of `bytes`. The view points into the encoder's scratch
   * memory and is only valid during the call; the sink must not call the
   * encoder back.
   */
  pushBytes(bytes: Uint8Array): void;
}

/**
 * Writes messages as the UTF-8 bytes of their JSON line. The message must be
 * valid (as `parseMessage` returns it): other values give unspecified bytes
 * or a TypeError, possibly after part of a long line reached the sink. Like
 * `serializeMessage`, it throws when a tool call's `extras` is not JSON
 * (a BigInt, a cycle), and then before any byte reaches the sink.
 */
export interface MessageLineEncoder {
  /** "wasm" (WebAssembly SIMD escaping) or "fallback" (`serializeMessage` + UTF-8). */
  readonly kind: "wasm" | "fallback";
  /** Bytes of WebAssembly memory this encoder holds (0 for the fallback). */
  readonly memoryBytes: number;
  /** Pushes the bytes of `serializeMessage(message)` to `sink`; returns their count. */
  encode(message: Message, sink: ByteSink): number;
  /** Pushes the bytes of `serializeMessage(message)` and a newline to `sink`; returns their count. */
  encodeLine(message: Message, sink: ByteSink): number;
}

/** UTF-16 units of a string encoded at a time: longer strings go in slices of this many. */
export const STRING_SLICE = 64 * 1024;

/** Strings up to this length are first tried as printable ASCII, copied by a JS loop (cheaper than a call into Node). */
const SHORT_STRING = 32;

// Memory layout: [SOURCE, SOURCE + 2 * STRING_SLICE) holds the UTF-16 of one string (or
// slice), followed by the 32 bytes the escaper may read past it; the output scratch follows.
// The output never passes OUTPUT_LIMIT, leaving 32 bytes the escaper may overwrite, and has
// room for the largest slice (6 bytes a unit) and then some.
const SOURCE = 0;
const OUTPUT = SOURCE + 2 * STRING_SLICE + 64;
const PAGE = 64 * 1024;
const PAGES = Math.ceil((OUTPUT + 7 * STRING_SLICE + 32) / PAGE);
/** Bytes of WebAssembly memory a "wasm" encoder holds, whatever it encodes. */
export const ENCODER_MEMORY_BYTES = PAGES * PAGE;
const OUTPUT_LIMIT = ENCODER_MEMORY_BYTES - 32;

const constant = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "latin1"));

const ROLE_SYSTEM = constant('{"role":"system"');
const ROLE_USER = constant('{"role":"user"');
const ROLE_ASSISTANT = constant('{"role":"assistant"');
const ROLE_TOOL = constant('{"role":"tool"');
const ROLE = constant('{"role":');
const NAME = constant(',"name":');
const CONTENT = constant(',"content":');
const CONTENT_LIST = constant(',"content":[');
const TOOL_CALLS = constant(',"tool_calls":[');
const TOOL_CALL_ID = constant(',"tool_call_id":');
const PARTIAL_TRUE_END = constant(',"partial":true}');
const PARTIAL_FALSE_END = constant(',"partial":false}');
const TEXT = constant('{"type":"text","text":');
const THINK = constant('{"type":"think","think":');
const ENCRYPTED = constant(',"encrypted":');
const ENCRYPTED_NULL_END = constant(',"encrypted":null}');
const IMAGE_URL = constant('{"type":"image_url","image_url":{"url":');
const AUDIO_URL = constant('{"type":"audio_url","audio_url":{"url":');
const VIDEO_URL = constant('{"type":"video_url","video_url":{"url":');
const ID = constant(',"id":');
const ID_NULL_END = constant(',"id":null}}');
const CALL = constant('{"type":"function","id":');
const FUNCTION_NAME = constant(',"function":{"name":');
const ARGUMENTS = constant(',"arguments":');
const EXTRAS = constant('},"extras":');
const NULL = constant("null");

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const CLOSE_LIST = 93;
const CLOSE_OBJECT = 125;
const NEWLINE = 10;

/** The encoder of this process, once {@link messageLineEncoder} created it. */
let shared: MessageLineEncoder | undefined;

/** The encoder of this process, created on first use (WebAssembly when available, else the fallback). */
export function messageLineEncoder(): MessageLineEncoder {
  return (shared ??= createMessageLineEncoder());
}

/**
 * A new encoder with its own memory. `wasm: false` selects the fallback
 * (which is also what you get when WebAssembly SIMD is unavailable).
 */
export function createMessageLineEncoder(options: { wasm?: boolean } = {}): MessageLineEncoder {
  return (options.wasm !== false && wasmEncoder()) || fallbackEncoder;
}

const fallbackEncoder: MessageLineEncoder = {
  kind: "fallback",
  memoryBytes: 0,
  encode: (message, sink) => pushUtf8(serializeMessage(message), false, sink),
  encodeLine: (message, sink) => pushUtf8(serializeMessage(message), true, sink),
};

function pushUtf8(line: string, newline: boolean, sink: ByteSink): number {
  const length = Buffer.byteLength(line, "utf8");
  const bytes = Buffer.allocUnsafe(newline ? length + 1 : length);
  bytes.write(line, 0, "utf8");
  if (newline) bytes[length] = NEWLINE;
  sink.pushBytes(bytes);
  return bytes.length;
}

function wasmEncoder(): MessageLineEncoder | undefined {
  if (typeof WebAssembly !== "object" || !WebAssembly.validate(jsonEscapeWasm)) return undefined;
  let memory: { readonly buffer: ArrayBuffer };
  let escape: (source: number, units: number, target: number) => number;
  try {
    // A maximum equal to the initial size: the memory can never grow, so views of it never detach.
    memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(jsonEscapeWasm), { env: { memory } });
    escape = instance.exports.escape as typeof escape;
  } catch {
    return undefined;
  }
  const mem = new Uint8Array(memory.buffer);
  /** The same memory, for Node's string writes. */
  const buffer = Buffer.from(memory.buffer);
  const writeUtf16 = (s: string, offset: number): number => buffer.write(s, offset, "utf16le");

  /** End of the output in `mem` (the output starts at OUTPUT). */
  let pos = OUTPUT;
  /** Bytes of the current message already handed to the sink. */
  let pushed = 0;
  let sink: ByteSink | null = null;

  function flush(): void {
    sink!.pushBytes(mem.subarray(OUTPUT, pos));
    pushed += pos - OUTPUT;
    pos = OUTPUT;
  }

  function put(bytes: Uint8Array): void {
    if (pos + bytes.length > OUTPUT_LIMIT) flush();
    mem.set(bytes, pos);
    pos += bytes.length;
  }

  function byte(value: number): void {
    if (pos >= OUTPUT_LIMIT) flush();
    mem[pos++] = value;
  }

  /** A JSON string. */
  function string(s: string): void {
    const length = s.length;
    if (length <= SHORT_STRING) {
      if (pos + length + 2 > OUTPUT_LIMIT) flush();
      let p = pos;
      mem[p++] = QUOTE;
      for (let i = 0; i < length; i++) {
        const c = s.charCodeAt(i);
        if (c < 32 || c === QUOTE || c === BACKSLASH || c >= 128) return escaped(s);
        mem[p++] = c;
      }
      mem[p++] = QUOTE;
      pos = p;
      return;
    }
    escaped(s);
  }

  function escaped(s: string): void {
    const length = s.length;
    if (length > STRING_SLICE) return long(s);
    if (pos + 6 * length + 2 > OUTPUT_LIMIT) flush();
    writeUtf16(s, SOURCE);
    mem[pos] = QUOTE;
    pos = escape(SOURCE, length, pos + 1);
    mem[pos++] = QUOTE;
  }

  function long(s: string): void {
    byte(QUOTE);
    for (let start = 0, end = 0; start < s.length; start = end) {
      end = sliceEnd(s, start);
      if (pos + 6 * (end - start) > OUTPUT_LIMIT) flush();
      writeUtf16(s.slice(start, end), SOURCE);
      pos = escape(SOURCE, end - start, pos);
    }
    byte(QUOTE);
  }

  /** Text that is JSON already (well-formed: JSON.stringify escapes lone surrogates), as UTF-8. */
  function text(s: string): void {
    if (s.length <= STRING_SLICE) {
      if (pos + 3 * s.length > OUTPUT_LIMIT) flush();
      pos += buffer.write(s, pos);
      return;
    }
    for (let start = 0, end = 0; start < s.length; start = end) {
      end = sliceEnd(s, start);
      if (pos + 3 * (end - start) > OUTPUT_LIMIT) flush();
      pos += buffer.write(s.slice(start, end), pos);
    }
  }

  function part(p: ContentPart): void {
    switch (p.type) {
      case "text":
        put(TEXT);
        string(p.text);
        byte(CLOSE_OBJECT);
        return;
      case "think":
        put(THINK);
        string(p.think);
        if (p.encrypted == null) {
          put(ENCRYPTED_NULL_END);
        } else {
          put(ENCRYPTED);
          string(p.encrypted);
          byte(CLOSE_OBJECT);
        }
        return;
      case "image_url":
        put(IMAGE_URL);
        return media(p.image_url.url, p.image_url.id);
      case "audio_url":
        put(AUDIO_URL);
        return media(p.audio_url.url, p.audio_url.id);
      case "video_url":
        put(VIDEO_URL);
        return media(p.video_url.url, p.video_url.id);
      default:
        // What JSON.stringify writes for a part serializeMessage does not know.
        return put(NULL);
    }
  }

  function media(url: string, id: string | null | undefined): void {
    string(url);
    if (id == null) return put(ID_NULL_END);
    put(ID);
    string(id);
    byte(CLOSE_OBJECT);
    byte(CLOSE_OBJECT);
  }

  function toolCall(call: ToolCall, extras: string | undefined): void {
    put(CALL);
    string(call.id);
    put(FUNCTION_NAME);
    string(call.function.name);
    if (call.function.arguments != null) {
      put(ARGUMENTS);
      string(call.function.arguments);
    }
    if (extras !== undefined) {
      put(EXTRAS);
      text(extras);
    } else {
      byte(CLOSE_OBJECT);
    }
    byte(CLOSE_OBJECT);
  }

  function message(m: Message): void {
    // Tool call extras go through JSON.stringify, which throws on values JSON cannot hold
    // (BigInt, cycles): first, so that such a throw comes before any byte reaches the sink.
    const calls = m.tool_calls;
    let extras: (string | undefined)[] | undefined;
    if (calls != null) {
      for (let i = 0; i < calls.length; i++) {
        const value = calls[i]!.extras;
        if (value != null) (extras ??= [])[i] = JSON.stringify(value);
      }
    }
    switch (m.role) {
      case "user":
        put(ROLE_USER);
        break;
      case "assistant":
        put(ROLE_ASSISTANT);
        break;
      case "tool":
        put(ROLE_TOOL);
        break;
      case "system":
        put(ROLE_SYSTEM);
        break;
      default:
        put(ROLE);
        string(m.role);
    }
    if (m.name != null) {
      put(NAME);
      string(m.name);
    }
    const content = m.content;
    const only = content.length === 1 ? content[0]! : undefined;
    if (only?.type === "text") {
      put(CONTENT);
      string(only.text);
    } else {
      put(CONTENT_LIST);
      for (let i = 0; i < content.length; i++) {
        if (i > 0) byte(COMMA);
        part(content[i]!);
      }
      byte(CLOSE_LIST);
    }
    if (calls != null) {
      put(TOOL_CALLS);
      for (let i = 0; i < calls.length; i++) {
        if (i > 0) byte(COMMA);
        toolCall(calls[i]!, extras?.[i]);
      }
      byte(CLOSE_LIST);
    }
    if (m.tool_call_id != null) {
      put(TOOL_CALL_ID);
      string(m.tool_call_id);
    }
    if (m.partial != null) put(m.partial ? PARTIAL_TRUE_END : PARTIAL_FALSE_END);
    else byte(CLOSE_OBJECT);
  }

  function encode(m: Message, to: ByteSink, newline: boolean): number {
    if (sink !== null) throw new Error("MessageLineEncoder: encode called again while encoding (from its sink)");
    sink = to;
    pos = OUTPUT;
    pushed = 0;
    try {
      message(m);
      if (newline) byte(NEWLINE);
      const total = pushed + pos - OUTPUT;
      flush();
      return total;
    } finally {
      sink = null;
    }
  }

  return {
    kind: "wasm",
    get memoryBytes() {
      return memory.buffer.byteLength;
    },
    encode: (m, to) => encode(m, to, false),
    encodeLine: (m, to) => encode(m, to, true),
  };
}

/**
 * The end of the slice of `s` from `start`: STRING_SLICE units on, or one
 * less where that would end on a high surrogate (the escaper would take it
 * for a lone one; a pair is never split, a lone high surrogate goes with
 * the next slice).
 */
function sliceEnd(s: string, start: number): number {
  const end = start + STRING_SLICE;
  if (end >= s.length) return s.length;
  const last = s.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}
