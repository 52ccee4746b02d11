/** Everything a Context shows, for comparing two contexts (a copy: later operations do not change it). */
import type { Context } from "@kosong/soul";

export function snapshot(context: Context) {
  return {
    history: context.history.map((m) => structuredClone(m)),
    tokenCount: context.tokenCount,
    tokenCountWithPending: context.tokenCountWithPending,
    nCheckpoints: context.nCheckpoints,
    checkpoints: context.checkpoints,
    systemPrompt: context.systemPrompt,
  };
}
