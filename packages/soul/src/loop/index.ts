/** Exports of the loop area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts). */
import "../session/tool-context.js";

export { Soul, type RunOptions, type SoulOptions, type SoulStatus, type TurnOptions } from "./soul.js";
export type { SoulObserver } from "./event-observer.js";
export type { AgentSpec } from "./runtime.js";
export type { CompactionOutcome, SoulStream, Turn, TurnResult } from "./turn.js";
export { ToolTimeoutError } from "./tool-timeout-error.js";
export { defaultSoulConfig, resolveSoulConfig, type RetryTiming, type SoulConfig, type SoulConfigInput } from "./config.js";
export { retryDelay } from "./retry-delay.js";
export type { Replacement } from "./rewrite.js";
