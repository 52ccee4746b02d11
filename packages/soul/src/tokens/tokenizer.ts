/**
 * Counting the tokens of a text. Two tokenizers ship: {@link o200kTokenizer}
 * (OpenAI's o200k_base through gpt-tokenizer, the default) and
 * {@link charsPerTokenTokenizer} (characters / 4, kimi-cli's cheap estimate).
 */
import { createRequire } from "node:module";

/** Something that counts the tokens of a text. */
export interface Tokenizer {
  /** A short name for reports, e.g. `o200k_base`, `chars/4`. */
  readonly name: string;
  /** The number of tokens of `text`. */
  count(text: string): number;
  /**
   * Loads what {@link count} needs, for a tokenizer with tables to load
   * (resolves at once when they are loaded). The compaction strategies await
   * it before they count.
   */
  load?(): Promise<void>;
}

/**
 * About four characters per token, rounded up: free to compute, fair for
 * English prose, but it undercounts code (about 35 % here) and CJK text (a
 * Chinese character is about one token, not a quarter). See the tokenizer
 * benchmark for the measured error.
 */
export const charsPerTokenTokenizer: Tokenizer = {
  name: "chars/4",
  count: (text) => Math.ceil(text.length / 4),
};

interface O200kModule {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

let o200k: O200kModule | undefined;
let loading: Promise<void> | undefined;

/** Node's synchronous load, for a count before {@link o200kTokenizer.load} (not in a bundle: see there). */
function requireO200k(): O200kModule {
  try {
    return createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200kModule;
  } catch (error) {
    throw new Error("The o200k_base tokenizer is not loaded: `await o200kTokenizer.load()` before counting (a bundle cannot load it synchronously).", { cause: error });
  }
}

/**
 * OpenAI's o200k_base encoding (GPT-4o, GPT-4.1, GPT-5, o-series) in pure
 * JavaScript (gpt-tokenizer). Exact for those models only: other providers
 * count more for the same messages (real prompt-token counts ran about 10 %
 * above it on DeepSeek and 22-24 % above it on Claude, on code-heavy agent
 * sessions), so budgets in a provider's tokens need a calibration
 * (`calibratedTokenScale`). Special-token text such as
 * `<|endoftext|>` is counted as plain text. The encoding tables load on
 * {@link Tokenizer.load} (a static `import()` that bundlers such as esbuild
 * follow; the compaction strategies await it), not on import: loading costs
 * about 0.2 s and 60 MB of RSS, once per process; gpt-tokenizer is about
 * 28 MB on disk. A count before any load loads them synchronously through
 * Node's module resolution, which a bundle without `node_modules` cannot do:
 * there, `await o200kTokenizer.load()` before counting yourself. Pass
 * {@link charsPerTokenTokenizer} where those costs matter more than exact counts.
 */
export const o200kTokenizer: Tokenizer & { load(): Promise<void> } = {
  name: "o200k_base",
  load() {
    if (o200k !== undefined) return Promise.resolve();
    loading ??= import("gpt-tokenizer/encoding/o200k_base").then((module: O200kModule) => {
      o200k ??= module;
    });
    return loading;
  },
  count(text) {
    if (text === "") return 0;
    o200k ??= requireO200k();
    return o200k.countTokens(text, { disallowedSpecial: noSpecialTokens });
  },
};

const noSpecialTokens = new Set<string>();
