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
 * Sets V8's WebAssembly tiering budget to {@link tieringBudget}. Call it
 * before the first connection compiles the parser, and after the modules the
 * process needs are loaded: a V8 flag changed at run time changes V8's flag
 * hash, and Node then rejects its embedded code cache (and kosong's compile
 * cache) for every module loaded afterwards. Set at the entry, it made every
 * start compile about 90 of Node's built-in modules from scratch (`kosong -p`:
 * 230-250 against 210 ms of CPU), for a parser a single answer never
 * recompiles; so only the interactive mode sets it, once the model's SDK and
 * Node's fetch are loaded, while the prompt still waits (a turn started by
 * then loads its modules first: it goes without). `node:v8` is loaded here.
 */
export async function keepHttpParserAtBaseline(): Promise<void> {
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString(`--wasm-tiering-budget=${tieringBudget}`);
}
