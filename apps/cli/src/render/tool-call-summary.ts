/**
 * One-line views of tool calls and results: the tool's name with its key
 * argument, and a short result (the tool's brief, or its error), with
 * control characters made visible.
 */
import type { ToolReturnValue } from "@kosong/core";
import { cutToWidth } from "./cut-to-width.js";
import { oneLine, visibleControls } from "./visible-controls.js";

const keyArguments = ["path", "command", "pattern", "message", "pointer", "query", "url"];

/** `Name(key argument)`, from the call's JSON arguments (the argument shortened to `max` terminal columns: CJK text counts double). */
export function toolCallLabel(name: string, argumentsJson: string | null, max = 70): string {
  let key = "";
  try {
    const args = JSON.parse(argumentsJson || "{}") as Record<string, unknown>;
    const field = keyArguments.find((k) => typeof args[k] === "string") ?? Object.keys(args).find((k) => typeof args[k] === "string");
    if (field) key = String(args[field]);
  } catch {
    key = argumentsJson ?? "";
  }
  key = cutToWidth(oneLine(key, max), max);
  const shownName = visibleControls(name, { oneLine: true });
  return key ? `${shownName}(${key})` : shownName;
}

/** The result's one-line summary: its brief, else the start of its message or output. */
export function toolResultBrief(result: ToolReturnValue, max = 100): string {
  const brief = result.display.find((block) => block.type === "brief")?.text;
  const text = typeof brief === "string" && brief ? brief : result.message || (typeof result.output === "string" ? result.output : "");
  return oneLine(text, max);
}
