/** Public exports of the token-counting area of @kosong/soul. */
export { estimateTokens } from "./estimate-tokens.js";
