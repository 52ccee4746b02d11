/**
 * What a range of messages held, in a few words for its recall pointer: the
 * files its tool calls named, the commands they ran, the errors they met.
 */
import { extractText, type Message, type ToolCall } from "@kosong/core";
import type { MessageRange } from "./dropped-ranges.js";
import { noticeLine } from "../compaction/notice-line.js";
import { callsById } from "./render-range.js";
import { toolCallCommand, toolCallPath } from "./tool-call-path.js";

/** The files, commands and errors of a range, in order of first appearance, without repeats. */
export interface RangeDigest {
  /** How many messages the range holds. */
  messages: number;
  files: string[];
  commands: string[];
  errors: string[];
}

/** `SomethingError: message`, a failing test line, or a tool's error result. */
const ERROR_LINE = /^\s*(?:\w*(?:Error|Exception)\b:?\s.*|(?:FAILED|FAIL|ERROR)\b.*|<system>ERROR.*)$/m;
const ITEM_CHARS = 80;

/** The digest of `history[range]`; a tool result's call is looked up in the whole history (it may precede the range). */
export function rangeDigest(history: readonly Message[], range: MessageRange): RangeDigest {
  const files = new Set<string>();
  const commands = new Set<string>();
  const errors = new Set<string>();
  const calls = callsById(history);
  const addCall = (call: ToolCall | undefined): void => {
    if (call === undefined) return;
    const path = toolCallPath(call);
    if (path !== null) files.add(cleanItem(path));
    const command = toolCallCommand(call);
    if (command !== null) commands.add(cleanItem(command));
  };
  for (const message of history.slice(range.from, range.to)) {
    for (const call of message.tool_calls ?? []) addCall(call);
    if (message.role === "tool" && message.tool_call_id !== undefined) addCall(calls.get(message.tool_call_id));
    const error = ERROR_LINE.exec(extractText(message));
    if (error !== null) errors.add(cleanItem(error[0].replace(/^<system>/, "")));
  }
  return { messages: range.to - range.from, files: [...files], commands: [...commands], errors: [...errors] };
}

/**
 * The digest as one line with at most `items` entries of each kind (0: the
 * message count only), e.g. `12 messages; files: a.ts, b.ts; ran: npm test; errors: TypeError: x`.
 */
export function describeDigest(digest: RangeDigest, items: number): string {
  const parts = [digest.messages === 1 ? "1 message" : `${digest.messages} messages`];
  const list = (label: string, values: string[]): void => {
    if (items === 0 || values.length === 0) return;
    const more = values.length > items ? ` (+${values.length - items})` : "";
    parts.push(`${label}: ${values.slice(0, items).join(", ")}${more}`);
  };
  list("files", digest.files);
  list("ran", digest.commands);
  list("errors", digest.errors);
  return parts.join("; ");
}

/** One line of at most {@link ITEM_CHARS} characters, safe inside the pointer notice (the text comes from tools and the model: see {@link noticeLine}). */
function cleanItem(text: string): string {
  return noticeLine(text, ITEM_CHARS);
}
