/** Public exports of the token-counting area of @kosong/soul. */
export { charsPerTokenTokenizer, o200kTokenizer, type Tokenizer } from "./tokenizer.js";
export { defaultMediaTokens, type MediaTokenRule, mediaTokens } from "./media-tokens.js";
export {
  estimateMessageTokens,
  estimateTokens,
  type EstimateTokensOptions,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
} from "./estimate-tokens.js";
export { TokenCounter } from "./token-counter.js";
export { type ContextUsage, contextUsage, type ContextUsageOptions, DEFAULT_TRIGGER_RATIO } from "./context-usage.js";
export { calibratedTokenScale, type TokenCalibrationOptions } from "./token-calibration.js";
export { type BreakdownInput, type ContextBreakdown, contextBreakdown, type MessageKind } from "./context-breakdown.js";
