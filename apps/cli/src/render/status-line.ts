/**
 * The status line: model, context usage as tokens, percent and a small bar,
 * the compaction strategy and the session id.
 */
import type { Style } from "./terminal-style.js";

/** What the status line shows. */
export interface StatusInfo {
  model: string;
  contextTokens: number;
  maxContextTokens: number | null;
  sessionId: string;
  strategy: string;
  yolo: boolean;
}

/** `n` tokens as `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A bar of `width` cells for `fraction` (0..1) of the window. */
export function usageBar(fraction: number, width = 10): string {
  const filled = Math.min(width, Math.max(0, Math.round(fraction * width)));
  return "▰".repeat(filled) + "▱".repeat(width - filled);
}

/** The status line text. */
export function statusLine(info: StatusInfo, style: Style): string {
  const parts = [style.bold(info.model)];
  if (info.maxContextTokens) {
    const fraction = info.contextTokens / info.maxContextTokens;
    const colour = fraction >= 0.85 ? style.red : fraction >= 0.6 ? style.yellow : style.green;
    parts.push(`${colour(usageBar(fraction))} ${formatTokens(info.contextTokens)}/${formatTokens(info.maxContextTokens)} (${Math.round(fraction * 100)}%)`);
  } else {
    parts.push(`${formatTokens(info.contextTokens)} tokens`);
  }
  parts.push(`compaction: ${info.strategy}`);
  if (info.yolo) parts.push(style.yellow("yolo"));
  parts.push(`session ${info.sessionId}`);
  return style.dim(parts.join(" · "));
}
