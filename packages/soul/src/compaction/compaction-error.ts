import { SoulError } from "../errors.js";

/**
 * A compaction that cannot run as configured (an LLM-backed strategy without
 * a provider, invalid options). Provider failures during a summary are
 * thrown as the provider's own `ChatProviderError`s.
 */
export class CompactionError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.CompactionError";
}
