/**
 * @kosong/soul/internal: every name of the package, for this repository's
 * tests, benchmarks and CLI. Not part of the public API: names here may
 * change in any release. Agent builders import from `@kosong/soul` and its
 * named subpaths (`/compaction`, `/tokens`, `/conversation`).
 */
export * from "../context/index.js";
export * from "../soul/index.js";
export * from "../tools/index.js";
export * from "../compaction/index.js";
export * from "../conversation/index.js";
export * from "../tokens/index.js";
export * from "../files/index.js";
export * from "../recall/index.js";
