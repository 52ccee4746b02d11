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
  const redact = (value: unknown): unknown => {
    if (typeof value === "string") return secrets.reduce((text, secret) => text.split(secret).join(redactedMark), value);
    if (Array.isArray(value)) return value.map(redact);
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
    return value;
  };
  return records.map((record) => {
    const decoded = decodeRecord(redact(JSON.parse(encodeRecord(record))));
    // A record that no longer decodes (a secret was the whole id of something) is left out rather than leaked.
    return decoded.ok ? decoded.record : null;
  }).filter((r): r is ContextRecord => r !== null);
}
