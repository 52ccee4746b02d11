import { readFileSync, readdirSync } from "node:fs";
import { serializeMessage, type Message } from "@kosong/core";
import { fixture } from "@kosong/test-support";

/** A state as upstream's `expected.json` writes it (history as kosong JSON, nulls excluded). */
export interface ExpectedState {
  history: unknown[];
  token_count: number;
  n_checkpoints: number;
  system_prompt: string | null;
  token_count_with_pending: number;
}

/** One folder of `kimi-cli-sessions`: its path, its files and its `expected.json`. */
export interface KimiSession {
  name: string;
  dir: string;
  files: string[];
  expected: { restored: ExpectedState; files: string[]; [scenario: string]: unknown };
}

export const KIMI_SESSION_NAMES = ["basic", "agent-turns", "revert-and-dmail", "clear", "corrupt-lines"] as const;

export function kimiSession(name: string): KimiSession {
  const dir = fixture(`kimi-cli-sessions/${name}`);
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
  const expected = JSON.parse(readFileSync(`${dir}/expected.json`, "utf8")) as KimiSession["expected"];
  return { name, dir, files, expected };
}

/** Messages as kosong JSON objects, the form of `expected.json` histories. */
export function asKosongJson(messages: readonly Message[]): unknown[] {
  return messages.map((m) => JSON.parse(serializeMessage(m)) as unknown);
}

/**
 * The documented upstream defect: kimi-cli drops an assistant message whose
 * tool call has no `arguments` key. Removes such messages from our (correct)
 * history so it can be compared with upstream's expected one.
 */
export function withUpstreamDefect(messages: readonly Message[]): Message[] {
  return messages.filter((m) => !(m.tool_calls ?? []).some((c) => c.function.arguments === null));
}

/** Text characters of messages (text parts only): the "pending" estimate of kimi-cli is these // 4. */
export function textChars(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) for (const p of m.content) if (p.type === "text") n += p.text.length;
  return n;
}
