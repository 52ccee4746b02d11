import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { FileRegistry } from "@kosong/soul";
import { validateConversation } from "@kosong/soul/conversation";
import { estimateTokens } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";
import { createCompaction } from "../src/agent/create-compaction.js";
import { SwitchableCompaction } from "../src/agent/switchable-compaction.js";
import { compactionNames } from "../src/config/setting-values.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

function longHistory(): Message[] {
  const history: Message[] = [];
  for (let i = 0; i < 30; i++) {
    history.push({ role: "user", content: [{ type: "text", text: `Request ${i}: ${"please look at this carefully. ".repeat(20)}` }] });
    history.push({ role: "assistant", content: [], tool_calls: [{ type: "function", id: `c${i}`, function: { name: "ReadFile", arguments: '{"path":"a.txt"}' } }] });
    history.push({ role: "tool", tool_call_id: `c${i}`, content: [{ type: "text", text: "file line\n".repeat(200) }] });
    history.push({ role: "assistant", content: [{ type: "text", text: `Done with request ${i}.` }] });
  }
  return history;
}

describe("the CLI's compaction strategies", () => {
  it("builds every strategy of --compaction, each producing a valid, shorter conversation", async () => {
    const root = await tempDir();
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src/a.ts"), "export const a = 1;\n");
    const files = new FileRegistry();
    files.recordWrite(path.join(root, "src/a.ts"));
    const summary = "text: ## Technical context\\nTS\\n## Project overview\\np\\n## Code changes\\nc\\n## Debugging and issues\\nd\\n## Current status\\ns\\n## Pending tasks\\nt\\n## User preferences\\nu\\n## Key decisions\\nk";
    for (const name of compactionNames) {
      const provider = new ScriptedChatProvider([summary, summary]);
      const compaction = createCompaction(name, { main: provider, compact: null, maxContextSize: 20_000 });
      const history = longHistory();
      const result = await compaction.compact(history, { provider, files });
      // Shorter in tokens: a strategy may keep every message with repeated lines condensed.
      expect(estimateTokens(result.messages), name).toBeLessThan(estimateTokens(history));
      expect(validateConversation(result.messages), name).toEqual([]);
    }
  });

  it("switches strategy mid-session", () => {
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    const switchable = new SwitchableCompaction("simple", (name) => createCompaction(name, providers));
    expect([switchable.choice, switchable.name]).toEqual(["simple", "simple"]);
    switchable.use("preserve-important");
    expect(switchable.choice).toBe("preserve-important");
    expect(switchable.name).toBe(createCompaction("preserve-important", providers).name);
  });
});
