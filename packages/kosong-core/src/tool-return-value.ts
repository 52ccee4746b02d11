/**
 * What a tool returns, in kosong's shape: an output and a message for the
 * model, display blocks for the user, and extras for debugging.
 */
import type { ContentPart, JsonValue } from "./message.js";

/** A block of content shown to the user (not to the model), discriminated by `type`. */
export type DisplayBlock = { type: string; [key: string]: JsonValue };

/** A short one-line summary of a tool result for the user. */
export type BriefDisplayBlock = { type: "brief"; text: string };

/** The return value of a tool call (kosong's `ToolReturnValue`). */
export interface ToolReturnValue {
  /** Whether the call failed. */
  is_error: boolean;
  /** The output for the model: text or content parts. */
  output: string | ContentPart[];
  /** An explanatory message for the model (may be empty). */
  message: string;
  /** Blocks to display to the user. */
  display: DisplayBlock[];
  /** Anything else, for debugging or tests (null when unset). */
  extras?: Record<string, JsonValue> | null;
}

/** Options of {@link toolOk}. */
export interface ToolOkOptions {
  output: string | ContentPart | ContentPart[];
  /** A message for the model, shown before the output. */
  message?: string;
  /** A one-line summary for the user. */
  brief?: string;
  extras?: Record<string, JsonValue> | null;
}

/** Options of {@link toolError}. */
export interface ToolErrorOptions {
  /** What went wrong, for the model. Required: the model must learn why. */
  message: string;
  /** A one-line summary for the user. */
  brief?: string;
  /** Output produced before the failure, if any. */
  output?: string | ContentPart | ContentPart[];
  extras?: Record<string, JsonValue> | null;
}

/** Wraps a single part into a list, as kosong does. */
export function normalizeToolOutput(output: string | ContentPart | ContentPart[]): string | ContentPart[] {
  return typeof output === "string" || Array.isArray(output) ? output : [output];
}

/** The display list for a brief: one brief block, or none for an empty brief. */
export function briefDisplay(brief: string | undefined): DisplayBlock[] {
  return brief ? [{ type: "brief", text: brief }] : [];
}

/**
 * A successful result (kosong's `ToolOk`). Pass the output directly, or
 * options with a message for the model and a brief for the user.
 */
export function toolOk(output: string | ContentPart | ContentPart[] | ToolOkOptions): ToolReturnValue {
  const options: ToolOkOptions =
    typeof output === "string" || Array.isArray(output) || "type" in output ? { output } : output;
  return {
    is_error: false,
    output: normalizeToolOutput(options.output),
    message: options.message ?? "",
    display: briefDisplay(options.brief),
    extras: options.extras ?? null,
  };
}

/** The text of the first brief display block, or "" (kosong's `ToolReturnValue.brief`). */
export function toolBrief(value: ToolReturnValue): string {
  for (const block of value.display) if (block.type === "brief" && typeof block.text === "string") return block.text;
  return "";
}

/** True for a value shaped like a {@link ToolReturnValue}. */
export function isToolReturnValue(value: unknown): value is ToolReturnValue {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.is_error === "boolean" &&
    (typeof v.output === "string" || Array.isArray(v.output)) &&
    typeof v.message === "string" &&
    Array.isArray(v.display)
  );
}
