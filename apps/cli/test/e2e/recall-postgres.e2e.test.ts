/**
 * Recall with `--store` (conversations in PostgreSQL), through the built
 * binary: a compaction of a session kept in PostgreSQL leaves its pointer
 * notice there, and the model's `Recall` brings back the file's last view
 * and the dropped range from the rotation the store kept, in later runs.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { extractText, type Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();

const CONFIG = Array.from({ length: 150 }, (_, i) => (i === 90 ? "export const DATABASE_PORT = 54329;" : `// config line ${i}: settings of the service, nothing else`)).join("\n");
const call = (id: string, name: string, args: object) => `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;

async function messagesOf(id: string): Promise<Message[]> {
  const log = await pg.store.openLog(id);
  try {
    return (await log.read()).messages;
  } finally {
    await log.close();
  }
}

describe("Recall with --store", { timeout: 90_000 }, () => {
  it("brings back a file's last view and a dropped range after a compaction kept in PostgreSQL", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "config.ts"), CONFIG);
    let runs = 0;
    const run = async (prompt: string, script: string[], more: string[] = []) => {
      const file = path.join(home, `script-${runs++}.json`);
      await writeFile(file, JSON.stringify(script));
      const args = ["--provider", "scripted", "--script", file, "--store", pg.url, "--max-context-size", "4000", "--compaction", "preserve-recent", "-p", prompt, ...more];
      const result = await runKosong(args, { cwd, home });
      expect(result.code, result.stderr).toBe(0);
    };
    await run("read the config", [call("c1", "ReadFile", { path: "config.ts" }), "text: read"]);
    // The provider reports 3,500 tokens: past the threshold (3,000), so the next step compacts first.
    await run("keep the port in mind", ['text: noted\nusage: {"input_other": 3500, "output": 1}'], ["--continue"]);
    await run("which port?", [call("r1", "Recall", { path: "./config.ts", query: "DATABASE_PORT" }), "text: 54329"], ["--continue"]);
    const [id] = await readdir(path.join(home, ".kosong", "sessions"));
    const after = await messagesOf(id!);
    const notice = after.find((m) => extractText(m).startsWith("<system>Earlier parts of this conversation were compacted:"));
    expect(notice).toBeDefined();
    expect(extractText(after.find((m) => m.tool_call_id === "c1") ?? { content: [] })).not.toContain("DATABASE_PORT");
    expect(extractText(after.find((m) => m.tool_call_id === "r1")!)).toContain("export const DATABASE_PORT = 54329;");

    const pointer = /\br1:\d+(?:-\d+)?\b/.exec(extractText(notice!))![0];
    await run("show me that part again", [call("r2", "Recall", { pointer }), "text: there"], ["--continue"]);
    const recalled = extractText((await messagesOf(id!)).find((m) => m.tool_call_id === "r2")!);
    expect(recalled).toContain("export const DATABASE_PORT = 54329;");
    expect(recalled).toContain("read the config");
  });
});
