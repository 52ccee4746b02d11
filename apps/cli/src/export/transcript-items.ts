/**
 * A conversation as the items an export shows, in order: the system
 * prompt, user and assistant text, thinking, tool calls with their results
 * (matched by id), media, and under each `Agent` call the steps of the
 * child it ran (that turn of the child's conversation). Checkpoint markers
 * and usage records are not shown.
 */
import type { ContentPart, Message } from "@kosong/core";
import { checkpointMarkerId, type ContextRecord } from "@kosong/context/records";
import type { CarriedChild } from "../subagents/session-children.js";

/** One thing an export shows. */
export type TranscriptItem =
  | { kind: "system"; text: string }
  | { kind: "text"; role: "user" | "assistant"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "media"; role: string; what: string }
  | { kind: "tool"; name: string; id: string; args: string; result: string | null; agents?: ChildTurnItems[] };

/** The part of a child's conversation one `Agent` call ran, as items. */
export interface ChildTurnItems {
  id: string;
  subagentType: string;
  items: TranscriptItem[];
}

/** The items of `records`, each child of `children` under the Agent call(s) that ran it. */
export function transcriptItems(records: readonly ContextRecord[], children: readonly CarriedChild[] = []): TranscriptItem[] {
  const turns = childTurns(children);
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
        if (m.role === "user" && checkpointMarkerId(part.text.trim()) !== null) continue;
        items.push({ kind: "text", role: m.role, text: part.text });
      } else if (part.type === "think") items.push({ kind: "thinking", text: part.think });
      else items.push({ kind: "media", role: m.role, what: part.type.replace("_url", "") });
    }
    for (const call of m.tool_calls ?? []) {
      const agents = turns.get(call.id);
      const item = { kind: "tool" as const, name: call.function.name, id: call.id, args: call.function.arguments ?? "", result: null, ...(agents && { agents }) };
      calls.set(call.id, item);
      items.push(item);
    }
  }
  return items;
}

/**
 * The children's turns by the parent call that ran each: a child's
 * conversation is cut at its labelled checkpoints (`<parent session>/<parent
 * call>`, one per turn); what comes before the first belongs to the call
 * that started it.
 */
function childTurns(children: readonly CarriedChild[]): Map<string, ChildTurnItems[]> {
  const byCall = new Map<string, ChildTurnItems[]>();
  for (const { record, records } of children) {
    const parts = new Map<string, ContextRecord[]>();
    let call = record.parent_tool_call_id;
    for (const r of records) {
      if (r.kind === "checkpoint" && r.label !== undefined && r.label.includes("/")) call = r.label.slice(r.label.indexOf("/") + 1);
      const part = parts.get(call);
      if (part) part.push(r);
      else parts.set(call, [r]);
    }
    for (const [id, part] of parts) {
      const items = transcriptItems(part);
      if (items.length === 0) continue;
      byCall.set(id, [...(byCall.get(id) ?? []), { id: record.id, subagentType: record.subagent_type, items }]);
    }
  }
  return byCall;
}

function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : p.type === "think" ? "" : `[${p.type.replace("_url", "")}]`)).join("");
}
