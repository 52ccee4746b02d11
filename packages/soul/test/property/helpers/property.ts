/**
 * Seeds, trial counts and the invariant of the property tests: every tool
 * call in the history has exactly one result, right after its call.
 */
import { copyFile, rm } from "node:fs/promises";
import type { Message } from "@kosong/core";
import type { ChaosFaultKind } from "@kosong/core/testing";
import { Context } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";

export { tempDir } from "@kosong/test-support";

/**
 * The faults that are failed calls (ChaosChatProvider's kinds without
 * `corrupt_tool_call`, which is a model sending broken arguments: the model
 * then reads an error result, a conversation that rightly differs).
 */
export const failureKinds: ChaosFaultKind[] = ["rate_limit", "server_error", "overloaded", "timeout", "connection_reset", "empty_response"];

/**
 * The seed of a property test: `SOUL_PROPERTY_SEED` when set (to replay a
 * failure), else a random one. Printed either way.
 */
export function propertySeed(test: string): number {
  const given = process.env.SOUL_PROPERTY_SEED;
  const seed = given !== undefined && given !== "" ? Number(given) : Math.floor(Math.random() * 2 ** 32);
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`SOUL_PROPERTY_SEED must be a non-negative integer, got ${given}`);
  console.log(`[${test}] seed ${seed} (replay: SOUL_PROPERTY_SEED=${seed})`);
  return seed;
}

/** How many trials: the env variable `name` when set (for longer runs), else `fallback`. */
export function trialCount(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const count = Number(given);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`${name} must be a positive integer, got ${given}`);
  return count;
}

/**
 * What breaks the invariant, as sentences (empty when it holds): each call
 * answered exactly once, and the conversation valid for every provider.
 */
export function callProblems(history: readonly Message[]): string[] {
  const results = new Map<string, number>();
  for (const m of history) if (m.role === "tool") results.set(m.tool_call_id!, (results.get(m.tool_call_id!) ?? 0) + 1);
  const problems: string[] = [];
  for (const m of history) {
    for (const call of m.role === "assistant" ? (m.tool_calls ?? []) : []) {
      const n = results.get(call.id) ?? 0;
      if (n !== 1) problems.push(`call ${call.id} has ${n} results`);
    }
  }
  return [...problems, ...validateConversation(history).map((v) => v.message)];
}

/** The number of tool calls in `history`. */
export function callCount(history: readonly Message[]): number {
  return history.reduce((n, m) => n + (m.role === "assistant" ? (m.tool_calls?.length ?? 0) : 0), 0);
}

/**
 * What a crash right now would leave: the file at `file` copied (the live
 * context holds its lock) and restored through a new Context.
 */
export async function restoreCopy(file: string) {
  const copy = `${file}.copy-${Date.now()}.jsonl`;
  await copyFile(file, copy);
  const context = new Context(copy);
  const report = await context.restore();
  const history = context.history.map((m) => structuredClone(m));
  await context.close();
  await rm(copy, { force: true });
  return { report, history };
}
