/**
 * The records of a context file: one JSON object per line, either a message
 * or an internal record whose `role` starts with `_`.
 *
 * Messages are written by @kosong/core's `serializeMessage` (compact,
 * byte-identical to kosong / kimi-cli). Internal records are written in
 * kimi-cli's style, Python's `json.dumps` defaults: `{"role": "_usage",
 * "token_count": 150}`, non-ASCII escaped. A file written here is therefore
 * byte-identical to the one kimi-cli writes for the same operations, and both
 * kimi-cli and kosong (which parse each line as JSON) restore it to the same
 * state. The reader accepts either style.
 */
import { MessageParseError, parseMessage, serializeMessage, type JsonValue, type Message } from "@kosong/core";
import { InvalidRecordError } from "./errors.js";
import { pythonJsonDumps, pythonJsonString } from "./python-json.js";

/** A conversation message. */
export interface MessageRecord {
  kind: "message";
  message: Message;
}

/** `{"role": "_usage", "token_count": N}`: the context's token count from this point on. */
export interface UsageRecord {
  kind: "usage";
  tokenCount: number;
}

/**
 * `{"role": "_checkpoint", "id": N}`: kimi-cli's checkpoint marker (ids count
 * up from 0). An optional `label` is stored as an extra key,
 * `{"role": "_checkpoint", "id": 3, "label": "x"}`, which kimi-cli ignores.
 */
export interface CheckpointRecord {
  kind: "checkpoint";
  id: number;
  label?: string;
}

/** `{"role": "_system_prompt", "content": "..."}`: the system prompt of the session. */
export interface SystemPromptRecord {
  kind: "system_prompt";
  content: string;
}

/**
 * Any other internal record (`role` starting with `_`), kept as read and
 * ignored by the state of a context. `value` is the whole JSON object,
 * `role` included.
 */
export interface OtherRecord {
  kind: "other";
  role: string;
  value: { [key: string]: JsonValue };
}

/** One line of a context file. */
export type ContextRecord = MessageRecord | UsageRecord | CheckpointRecord | SystemPromptRecord | OtherRecord;

/** A message record. */
export function messageRecord(message: Message): MessageRecord {
  return { kind: "message", message };
}

/**
 * The records {@link parsedMessageRecord} makes: each holds a copy that
 * `parseMessage` made and validated, which {@link encodeRecord} serializes
 * without parsing it again. The brand is a private field, which only this
 * class's constructor gives (no object can be made to pass for one), and
 * the record is frozen, so a branded record always holds the copy it was
 * made with. (A brand costs the step nothing; a `WeakSet` of the records
 * cost an insertion per message and work for the garbage collector.)
 */
class ParsedMessageRecord implements MessageRecord {
  readonly kind = "message";
  readonly message: Message;
  readonly #parsed = true;

  constructor(message: Message) {
    this.message = message;
    Object.freeze(this);
  }

  /** Whether `record` was made by {@link parsedMessageRecord}. */
  static holds(record: MessageRecord): boolean {
    return #parsed in record;
  }
}

/**
 * A message record holding a validated copy of `input` (`parseMessage`),
 * made once: `record.message` is that copy, and {@link encodeRecord} writes
 * it without parsing it a second time. The record is frozen; the copy is
 * what gets written, so change neither. For a caller that keeps the copy
 * (a context keeps it in its history): one validation per message, not two.
 *
 * @throws `MessageParseError` for an invalid message.
 */
export function parsedMessageRecord(input: unknown): MessageRecord {
  return new ParsedMessageRecord(parseMessage(input));
}

/** A `_usage` record. */
export function usageRecord(tokenCount: number): UsageRecord {
  return { kind: "usage", tokenCount };
}

/** A `_checkpoint` record, with an optional label. */
export function checkpointRecord(id: number, label?: string): CheckpointRecord {
  return label === undefined ? { kind: "checkpoint", id } : { kind: "checkpoint", id, label };
}

/** A `_system_prompt` record. */
export function systemPromptRecord(content: string): SystemPromptRecord {
  return { kind: "system_prompt", content };
}

/** Any other internal record; `value.role` must start with `_` and not be a known internal role. */
export function otherRecord(value: { [key: string]: JsonValue }): OtherRecord {
  return { kind: "other", role: String(value.role), value };
}

const knownRoles = new Set(["_usage", "_checkpoint", "_system_prompt"]);

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Throws {@link InvalidRecordError} unless `tokenCount` is a non-negative integer. */
export function assertTokenCount(tokenCount: number): void {
  if (!isCount(tokenCount)) throw new InvalidRecordError(`token count must be a non-negative integer, got ${String(tokenCount)}`);
}

/**
 * The JSONL line (no newline) of a record, validating it first: an invalid
 * message throws `MessageParseError`, any other invalid record
 * {@link InvalidRecordError}.
 */
export function encodeRecord(record: ContextRecord): string {
  switch (record.kind) {
    case "message":
      // A validated copy is serialized: a caller's later change cannot reach the line, and a bad field throws here
      // (or threw when parsedMessageRecord made the record and its copy).
      return serializeMessage(ParsedMessageRecord.holds(record) ? record.message : parseMessage(record.message));
    case "usage":
      assertTokenCount(record.tokenCount);
      return `{"role": "_usage", "token_count": ${record.tokenCount}}`;
    case "checkpoint":
      return encodeCheckpoint(record);
    case "system_prompt":
      if (typeof record.content !== "string") throw new InvalidRecordError("system prompt content must be a string");
      return `{"role": "_system_prompt", "content": ${pythonJsonString(record.content)}}`;
    case "other":
      return encodeOther(record);
    default:
      throw new InvalidRecordError(`unknown record kind ${JSON.stringify((record as { kind?: unknown }).kind)}`);
  }
}

function encodeCheckpoint({ id, label }: CheckpointRecord): string {
  if (!isCount(id)) throw new InvalidRecordError(`checkpoint id must be a non-negative integer, got ${String(id)}`);
  if (label === undefined) return `{"role": "_checkpoint", "id": ${id}}`;
  if (typeof label !== "string") throw new InvalidRecordError(`checkpoint label must be a string, got ${describe(label)}`);
  return `{"role": "_checkpoint", "id": ${id}, "label": ${pythonJsonString(label)}}`;
}

function encodeOther(record: OtherRecord): string {
  const value = record.value;
  const role = typeof value === "object" && value !== null ? value.role : undefined;
  if (typeof role !== "string" || !role.startsWith("_")) {
    throw new InvalidRecordError(`an internal record needs a role starting with "_", got ${JSON.stringify(role)}`);
  }
  if (knownRoles.has(role)) throw new InvalidRecordError(`${role} records are written with their own record kind`);
  const { role: _, ...rest } = value;
  try {
    return pythonJsonDumps({ role, ...rest });
  } catch (error) {
    throw new InvalidRecordError(`internal record ${role} is not plain JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Why a line was not read as a record. */
export type DamageKind = "blank" | "torn" | "invalid-utf8" | "invalid-json" | "not-object" | "no-role" | "invalid-message" | "invalid-record";

/** The result of decoding one parsed line: a record, or why it is not one. */
export type DecodedLine = { ok: true; record: ContextRecord } | { ok: false; kind: DamageKind; reason: string };

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Decodes a parsed JSON value into a record: the single decision of what a
 * line means, shared by every reader. Never throws.
 */
export function decodeRecord(value: unknown): DecodedLine {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, kind: "not-object", reason: `expected a JSON object, got ${describe(value)}` };
  }
  const obj = value as { [key: string]: JsonValue };
  const role = obj.role;
  if (typeof role !== "string") {
    return { ok: false, kind: "no-role", reason: role === undefined ? "no role" : `role is ${describe(role)}` };
  }
  if (role.charCodeAt(0) !== 95 /* _ */) {
    try {
      return { ok: true, record: { kind: "message", message: parseMessage(obj) } };
    } catch (error) {
      const reason = MessageParseError.isInstance(error) ? error.message : `invalid message: ${String(error)}`;
      return { ok: false, kind: "invalid-message", reason };
    }
  }
  switch (role) {
    case "_usage": {
      const count = obj.token_count;
      if (!isCount(count)) return { ok: false, kind: "invalid-record", reason: `_usage token_count is ${describe(count)}` };
      return { ok: true, record: { kind: "usage", tokenCount: count } };
    }
    case "_checkpoint": {
      const id = obj.id;
      if (!isCount(id)) return { ok: false, kind: "invalid-record", reason: `_checkpoint id is ${describe(id)}` };
      // A label that is not a string is ignored, as kimi-cli ignores every label: the checkpoint itself stays.
      const label = obj.label;
      return { ok: true, record: checkpointRecord(id, typeof label === "string" ? label : undefined) };
    }
    case "_system_prompt": {
      const content = obj.content;
      if (typeof content !== "string") {
        return { ok: false, kind: "invalid-record", reason: `_system_prompt content is ${describe(content)}` };
      }
      return { ok: true, record: { kind: "system_prompt", content } };
    }
    default:
      return { ok: true, record: { kind: "other", role, value: obj } };
  }
}

/** Decodes one line of text (JSON parse, then {@link decodeRecord}). Never throws. */
export function decodeRecordLine(line: string): DecodedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, kind: "invalid-json", reason: `not valid JSON (${(error as Error).message})` };
  }
  return decodeRecord(value);
}
