/** @kosong/soul: the agent runtime built on @kosong/context and @kosong/core. */
export { estimateTokens } from "./estimate-tokens.js";
