/**
 * A conversation as the items an export shows, in order: the system
 * prompt, user and assistant text, thinking, tool calls with their results
 * (matched by id), media. Checkpoint markers and usage records are not shown.
 */
import type { ContentPart, Message } from "@kosong/core";
import type { ContextRecord } from "@kosong/context/records";

/** One thing an export shows. */
export type TranscriptItem =
  | { kind: "system"; text: string }
  | { kind: "text"; role: "user" | "assistant"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "media"; role: string; what: string }
  | { kind: "tool"; name: string; id: string; args: string; result: string | null };

const checkpointMarker = /^<system>CHECKPOINT \d+<\/system>$/;

/** The items of `records`. */
export function transcriptItems(records: readonly ContextRecord[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const calls = new Map<string, Extract<TranscriptItem, { kind: "tool" }>>();
  for (const record of records) {
    if (record.kind === "system_prompt") items.push({ kind: "system", text: record.content });
    if (record.kind !== "message") continue;
    const m: Message = record.message;
    if (m.role === "tool") {
      const call = m.tool_call_id === undefined ? undefined : calls.get(m.tool_call_id);
      const text = partsText(m.content);
      if (call) call.result = text;
      else items.push({ kind: "tool", name: "(unknown tool)", id: m.tool_call_id ?? "", args: "", result: text });
      continue;
    }
    if (m.role === "system") {
      items.push({ kind: "system", text: partsText(m.content) });
      continue;
    }
    for (const part of m.content) {
      if (part.type === "text") {
        if (m.role === "user" && checkpointMarker.test(part.text.trim())) continue;
        items.push({ kind: "text", role: m.role, text: part.text });
      } else if (part.type === "think") items.push({ kind: "thinking", text: part.think });
      else items.push({ kind: "media", role: m.role, what: part.type.replace("_url", "") });
    }
    for (const call of m.tool_calls ?? []) {
      const item = { kind: "tool" as const, name: call.function.name, id: call.id, args: call.function.arguments ?? "", result: null };
      calls.set(call.id, item);
      items.push(item);
    }
  }
  return items;
}

function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : p.type === "think" ? "" : `[${p.type.replace("_url", "")}]`)).join("");
}
