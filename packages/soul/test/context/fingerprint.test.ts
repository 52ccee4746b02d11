/**
 * The conversation's fingerprint, which file journals keep in their restore
 * records across versions: hashed a message at a time, it must stay the
 * SHA-256 of `JSON.stringify([history, marks, systemPrompt])`, or a restore
 * a crash cut would be judged wrongly after an upgrade.
 */
import { createHash } from "node:crypto";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { fingerprintOf, INITIAL_STATE, type ContextState } from "../../src/context/context-state.js";

const digest = (state: ContextState) =>
  createHash("sha256")
    .update(JSON.stringify([state.history, state.marks.map((m) => [m.id, m.messageCount, m.label ?? null]), state.systemPrompt]))
    .digest("hex");

describe("fingerprintOf", () => {
  it("is the digest of the whole conversation as one JSON text: empty, one message, many, with checkpoints, labels and a prompt", () => {
    const history: Message[] = Array.from({ length: 50 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `m${i} "quoted" \u2028 é` }] }));
    const mark = (id: number, messageCount: number, label?: string) => ({ id, messageCount, tokenCount: 0, messagesBeforeLastUsage: 0, systemPrompt: null, nextCheckpointId: id, position: 0, ...(label && { label }) });
    const states: ContextState[] = [
      INITIAL_STATE,
      { ...INITIAL_STATE, history: history.slice(0, 1) },
      { ...INITIAL_STATE, history, marks: [mark(0, 0), mark(1, 10, "before refactor")], systemPrompt: "You are kosong." },
    ];
    for (const state of states) expect(fingerprintOf(state)).toBe(digest(state));
    expect(new Set(states.map(fingerprintOf)).size).toBe(3);
  });
});
