/**
 * A Context's file keeps owner-only permissions when a revert or a clear
 * replaces it (kimi-cli's `revert_to` and `clear`, and compaction, which
 * clears and writes the summary), and the old file kept as a rotation keeps
 * them too.
 */
import { chmod, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, userMessage } from "@kosong/core";
import { Context } from "@kosong/soul";
import { tempDir } from "@kosong/test-support";

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe("Context file modes", () => {
  it("a new session file is owner-only, and revertTo and clear keep the mode of the file they replace", async () => {
    for (const existing of [null, 0o600, 0o640]) {
      const dir = await tempDir();
      const file = path.join(dir, "context.jsonl");
      if (existing !== null) {
        await writeFile(file, "");
        await chmod(file, existing);
      }
      const context = new Context(file);
      await context.restore();
      await context.checkpoint();
      await context.appendMessage([userMessage("one"), assistantMessage("two")]);
      await context.checkpoint();
      await context.appendMessage(userMessage("three"));
      const mode = existing ?? 0o600;
      expect(await modeOf(file), "after appends").toBe(mode);
      await context.revertTo(1);
      expect(await modeOf(file), "after revertTo").toBe(mode);
      await context.clear();
      await context.writeSystemPrompt("after the clear");
      expect(await modeOf(file), "after clear").toBe(mode);
      await context.close();
      const names = (await readdir(dir)).filter((n) => n.endsWith(".jsonl"));
      expect(names.sort()).toEqual(["context.jsonl", "context_1.jsonl", "context_2.jsonl"]);
      for (const name of names) expect(await modeOf(path.join(dir, name)), name).toBe(mode);
    }
  });
});
