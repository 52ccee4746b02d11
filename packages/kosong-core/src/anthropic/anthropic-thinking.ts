/**
 * How a kosong thinking effort becomes Anthropic request options, per model,
 * exactly as kosong decides it:
 *
 * - models from Claude 4.6 on (Opus/Sonnet/Haiku `4-6`, `4.7`, ... and
 *   Mythos) use adaptive thinking (`{type: "adaptive", display: "summarized"}`)
 *   with `output_config.effort`;
 * - older models use a thinking budget (low 1024, medium 4096, high 32000
 *   tokens) and get `output_config.effort` only where the API documents it
 *   (Opus 4.5);
 * - efforts a model does not support are clamped to `high` (`xhigh` exists on
 *   Opus 4.7 only, `max` from 4.6 on); `off` disables thinking.
 */
import type { ThinkingEffort } from "../chat-provider.js";

/** Anthropic `thinking` request option. */
export type AnthropicThinkingConfig =
  | { type: "enabled"; budget_tokens: number; display?: "summarized" | "omitted" | null }
  | { type: "adaptive"; display?: "summarized" | "omitted" | null }
  | { type: "disabled" };

/** The effort levels of `output_config.effort`. */
export type AnthropicEffort = Exclude<ThinkingEffort, "off">;

/** Anthropic `output_config` request option. */
export interface AnthropicOutputConfig {
  effort?: AnthropicEffort | null;
}

/** The thinking-related request options one effort maps to. */
export interface AnthropicThinkingOptions {
  thinking: AnthropicThinkingConfig;
  /** The `output_config` to send; `null` removes one, `undefined` leaves the current one as it is. */
  outputConfig: AnthropicOutputConfig | null | undefined;
  /** True when the interleaved-thinking beta must be dropped (adaptive thinking includes it). */
  dropInterleavedBeta: boolean;
}

const adaptiveMarkersWithoutVersion = ["mythos"];
const familyVersion = /(?:opus|sonnet|haiku)[.-](\d+)[.-](\d{1,2})(?!\d)/;
const opusVersion = /opus[.-](\d+)[.-](\d{1,2})(?!\d)/;
const budgets = { low: 1024, medium: 4096, high: 32_000 } as const;

function version(pattern: RegExp, model: string): [number, number] | null {
  const match = pattern.exec(model.toLowerCase());
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** Whether `model` accepts `thinking: {type: "adaptive"}` (Claude 4.6 and later, Mythos). */
export function supportsAdaptiveThinking(model: string): boolean {
  const lower = model.toLowerCase();
  if (adaptiveMarkersWithoutVersion.some((marker) => lower.includes(marker))) return true;
  const v = version(familyVersion, model);
  return v !== null && (v[0] > 4 || (v[0] === 4 && v[1] >= 6));
}

function isOpus47(model: string): boolean {
  const v = version(opusVersion, model);
  return v !== null && v[0] === 4 && v[1] === 7;
}

/** The `output_config.effort` levels `model` accepts. */
export function supportedEfforts(model: string): ReadonlySet<AnthropicEffort> {
  if (isOpus47(model)) return new Set<AnthropicEffort>(["low", "medium", "high", "xhigh", "max"]);
  if (supportsAdaptiveThinking(model)) return new Set<AnthropicEffort>(["low", "medium", "high", "max"]);
  return new Set<AnthropicEffort>(["low", "medium", "high"]);
}

/** `effort` if `model` supports it, else `high` (`off` passes through). */
export function clampEffort(effort: ThinkingEffort, model: string): ThinkingEffort {
  if (effort === "off") return effort;
  return supportedEfforts(model).has(effort) ? effort : "high";
}

/** Whether `model` accepts `output_config.effort` at all (adaptive models and Opus 4.5). */
export function supportsEffortParam(model: string): boolean {
  if (supportsAdaptiveThinking(model)) return true;
  const lower = model.toLowerCase();
  return lower.includes("opus-4-5") || lower.includes("opus-4.5");
}

/** The request options that make `model` think with `effort`. */
export function anthropicThinkingOptions(effort: ThinkingEffort, model: string): AnthropicThinkingOptions {
  if (effort === "off") return { thinking: { type: "disabled" }, outputConfig: null, dropInterleavedBeta: false };
  const effective = clampEffort(effort, model) as AnthropicEffort;
  if (supportsAdaptiveThinking(model)) {
    return {
      thinking: { type: "adaptive", display: "summarized" },
      outputConfig: { effort: effective },
      dropInterleavedBeta: true,
    };
  }
  const level = effective as keyof typeof budgets;
  return {
    thinking: { type: "enabled", budget_tokens: budgets[level] },
    outputConfig: supportsEffortParam(model) ? { effort: effective } : undefined,
    dropInterleavedBeta: false,
  };
}

const efforts: ReadonlySet<string> = new Set(["low", "medium", "high", "xhigh", "max"]);

/**
 * The effort a thinking configuration amounts to: `off` when disabled, the
 * `output_config.effort` for adaptive thinking (`high` when unset), the
 * budget's level for budget thinking (<= 1024 low, <= 4096 medium, else
 * high); null when thinking was never configured.
 */
export function effortOfThinking(
  thinking: AnthropicThinkingConfig | null | undefined,
  outputConfig: AnthropicOutputConfig | null | undefined,
): ThinkingEffort | null {
  if (!thinking) return null;
  switch (thinking.type) {
    case "disabled":
      return "off";
    case "adaptive": {
      const effort = outputConfig?.effort;
      return effort && efforts.has(effort) ? effort : "high";
    }
    case "enabled":
      if (thinking.budget_tokens <= 1024) return "low";
      if (thinking.budget_tokens <= 4096) return "medium";
      return "high";
    default:
      return null;
  }
}
