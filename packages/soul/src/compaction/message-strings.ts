/**
 * The strings of a message that facts and identifiers are read from: its
 * text parts, and for each tool call its name and the string values of its
 * JSON arguments (the raw arguments when they are not JSON).
 */
import type { Message } from "@kosong/core";

/** The text parts, then each tool call's name and argument strings, in order. */
export function messageStrings(message: Message): string[] {
  return strings(message, true);
}

/** What the message's author wrote: its text parts, then its tool calls' argument strings, in order (not a tool's name, which is picked from a list). */
export function writtenStrings(message: Message): string[] {
  return strings(message, false);
}

function strings(message: Message, names: boolean): string[] {
  const found: string[] = [];
  for (const part of message.content) if (part.type === "text") found.push(part.text);
  for (const call of message.tool_calls ?? []) {
    if (names) found.push(call.function.name);
    for (const [, value] of argumentValues(call.function.arguments)) found.push(value);
  }
  return found;
}

/** The string values of a tool call's JSON arguments with the key each is under (null at the top or when the arguments are not JSON). */
export function argumentValues(args: string | null): Array<[string | null, string]> {
  if (args === null || args === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return [[null, args]];
  }
  const values: Array<[string | null, string]> = [];
  const visit = (node: unknown, key: string | null): void => {
    if (typeof node === "string") values.push([key, node]);
    else if (Array.isArray(node)) for (const child of node) visit(child, key);
    else if (node !== null && typeof node === "object") for (const [k, child] of Object.entries(node)) visit(child, k);
  };
  visit(value, null);
  return values;
}
