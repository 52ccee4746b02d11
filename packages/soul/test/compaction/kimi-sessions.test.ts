/**
 * Real histories: kimi-cli's own session files (checkpoint messages, think
 * parts with signatures, parallel calls, an image, a call without
 * arguments), restored through the soul's Context, are valid conversations
 * and stay valid through every strategy that needs no LLM.
 */
import { copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Context } from "@kosong/soul";
import { PreserveImportantCompaction, PreserveRecentCompaction, SmartCompaction } from "@kosong/soul/compaction";
import { validateConversation } from "@kosong/soul/conversation";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { SESSIONS } from "../context/helpers/kimi-sessions.js";

describe.each(["agent-turns", "basic", "revert-and-dmail"])("kimi-cli session %s", (name) => {
  it("restores to a valid conversation that every retention strategy keeps valid", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kosong-kimi-"));
    try {
      for (const file of await readdir(path.join(SESSIONS, name))) await copyFile(path.join(SESSIONS, name, file), path.join(dir, file));
      const context = new Context(path.join(dir, "context.jsonl"));
      await context.restore();
      const history = [...context.history];
      await context.close();
      expect(history.length).toBeGreaterThan(0);
      expect(validateConversation(history)).toEqual([]);
      const maxTokens = Math.max(40, Math.floor(estimateTokens(history) / 2));
      for (const strategy of [new PreserveRecentCompaction({ maxTokens }), new PreserveImportantCompaction({ maxTokens }), new SmartCompaction({ maxTokens })]) {
        const result = await strategy.compact(history);
        expect(validateConversation(result.messages), strategy.name).toEqual([]);
        expect(estimateTokens(result.messages), strategy.name).toBeLessThanOrEqual(maxTokens);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
