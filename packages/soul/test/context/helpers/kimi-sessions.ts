import { readFileSync } from "node:fs";
import path from "node:path";
import { serializeMessage, type Message } from "@kosong/core";
import type { Context } from "@kosong/soul";
import { fixture } from "@kosong/test-support";

/** `../shared/fixtures/kimi-cli-sessions` beside the repository (override the fixtures root with KOSONG_FIXTURES). */
export const SESSIONS = fixture("kimi-cli-sessions");

/** A state as upstream's `expected.json` writes it (history as kosong JSON, nulls excluded). */
export interface ExpectedState {
  history: unknown[];
  token_count: number;
  n_checkpoints: number;
  system_prompt: string | null;
  token_count_with_pending: number;
}

/** A session folder's `expected.json`. */
export function expected(name: string): Record<string, ExpectedState> & { files: string[] } {
  return JSON.parse(readFileSync(path.join(SESSIONS, name, "expected.json"), "utf8")) as Record<string, ExpectedState> & { files: string[] };
}

/**
 * The documented upstream defect: kimi-cli drops an assistant message whose
 * tool call has no `arguments` key, which we keep (with `arguments` null).
 * Removes such messages so our history compares with upstream's.
 */
function withUpstreamDefect(messages: readonly Message[]): Message[] {
  return messages.filter((m) => !(m.tool_calls ?? []).some((c) => c.function.arguments === null));
}

/** A Context's state in the form of `expected.json`, upstream's defect applied. */
export function upstreamView(context: Context): ExpectedState {
  return {
    history: withUpstreamDefect(context.history).map((m) => JSON.parse(serializeMessage(m)) as unknown),
    token_count: context.tokenCount,
    n_checkpoints: context.nCheckpoints,
    system_prompt: context.systemPrompt,
    token_count_with_pending: context.tokenCountWithPending,
  };
}
