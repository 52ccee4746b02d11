/**
 * Keeps the HTTP parser of Node's fetch on V8's baseline WebAssembly code.
 * undici parses responses with llhttp compiled to WebAssembly, and V8
 * recompiles a WebAssembly function with its optimizing compiler, on a
 * background thread, once it has done enough work: for llhttp, after a few
 * dozen chunks, which is a session's second streamed answer (or its first
 * long one). That compile took about 50 ms of CPU and left about 12 MB more
 * RSS for good, and the parser it makes was no faster on streamed answers
 * (a 3,000-chunk response: 2.6 to 4.2 ms of main-thread CPU on the
 * baseline code, 3.2 to 4.4 ms on the optimized). A tiering budget far
 * beyond what a session parses leaves the parser on the baseline code.
 */

/** V8's budget before a WebAssembly function is optimized (a rough count of bytes executed; its default: 13,000,000). */
const tieringBudget = 2_000_000_000;

/**
 * Sets V8's WebAssembly tiering budget to {@link tieringBudget}; call it
 * before anything compiles WebAssembly (the first fetch) and before the
 * compile cache is turned on (its code is checked against V8's flags, which
 * are then the same in every run). `node:v8` is loaded here, not by the
 * entry, which answers `--version` without it.
 */
export async function keepHttpParserAtBaseline(): Promise<void> {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString(`--wasm-tiering-budget=${tieringBudget}`);
}
