import { createErrorMarker } from "@kosong/core";

const marker = createErrorMarker("@kosong/soul.error.CompactionError");

/**
 * A compaction that cannot run as configured (an LLM-backed strategy without
 * a provider, invalid options). Provider failures during a summary are
 * thrown as the provider's own `ChatProviderError`s.
 */
export class CompactionError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CompactionError";
    marker.mark(this);
  }

  /** True when `value` is a CompactionError from any copy of @kosong/soul. */
  static isInstance(value: unknown): value is CompactionError {
    return marker.is(value);
  }
}
