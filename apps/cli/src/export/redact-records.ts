/**
 * Secrets out of an export: every occurrence of a secret value (see
 * `environmentSecrets`) in any string of a record, tool-call arguments
 * included, becomes `[REDACTED]`. The record is decoded again after, so
 * an export stays a valid conversation.
 */
import { type ContextRecord, decodeRecord, encodeRecord } from "@kosong/context/records";

/** The text that replaces a secret. */
export const redactedMark = "[REDACTED]";

/** `records` with every `secrets` value replaced (longest first); unchanged when there are none. */
export function redactRecords(records: readonly ContextRecord[], secrets: readonly string[]): ContextRecord[] {
  if (secrets.length === 0) return [...records];
  return records.map((record) => {
    const decoded = decodeRecord(redactValue(JSON.parse(encodeRecord(record)), secrets));
    // A record that no longer decodes (a secret was the whole id of something) is left out rather than leaked.
    return decoded.ok ? decoded.record : null;
  }).filter((r): r is ContextRecord => r !== null);
}

/** `value` (plain JSON data) with every `secrets` value in its strings replaced by {@link redactedMark}. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const redact = (v: unknown): unknown => {
    if (typeof v === "string") return secrets.reduce((text, secret) => text.split(secret).join(redactedMark), v);
    if (Array.isArray(v)) return v.map(redact);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redact(x)]));
    return v;
  };
  return redact(value) as T;
}
