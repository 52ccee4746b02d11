/**
 * @kosong/soul: the agent runtime built on @kosong/context and @kosong/core:
 * the checkpointed Context, the Soul agent loop, D-Mail, and compaction.
 * Each area exports its public names from its own barrel.
 */
export * from "./context/index.js";
export * from "./soul/index.js";
export * from "./tools/index.js";
export * from "./compaction/index.js";
export * from "./conversation/index.js";
export * from "./tokens/index.js";
export * from "./files/index.js";
