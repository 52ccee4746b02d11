/** The token-count check of a `_usage` record, as @kosong/context makes it. */
import { encodeRecord } from "@kosong/context/records";

/** Throws `InvalidRecordError` unless `tokenCount` is a non-negative integer (the record encoder's own check). */
export function assertTokenCountRecord(tokenCount: number): void {
  encodeRecord({ kind: "usage", tokenCount });
}
