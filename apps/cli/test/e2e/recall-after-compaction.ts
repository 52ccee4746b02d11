/**
 * The Recall scenario both stores run through the built binary: a session
 * reads a file, compacts (preserve-recent, the provider reporting a full
 * window), then the model's `Recall` brings back the file's last view by
 * its path (spelled differently) and the dropped range by the pointer the
 * compaction notice gave, each in a later run of the session.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { extractText, type Message } from "@kosong/core";
import { expect } from "vitest";
import { runKosong } from "./kosong-binary.js";

const CONFIG = Array.from({ length: 150 }, (_, i) => (i === 90 ? "export const DATABASE_PORT = 54329;" : `// config line ${i}: settings of the service, nothing else`)).join("\n");
const call = (id: string, name: string, args: object) => `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;

/**
 * Runs the scenario in `cwd` with `home` as the user's home, `storeArgs`
 * added to every run (`--store URL`, or none for the file store), and
 * checks what the session holds with `messagesOf()` (its messages now).
 */
export async function recallAfterCompaction(home: string, cwd: string, storeArgs: string[], messagesOf: () => Promise<Message[]>): Promise<void> {
  await writeFile(path.join(cwd, "config.ts"), CONFIG);
  let runs = 0;
  const run = async (prompt: string, script: string[], more: string[] = []) => {
    const file = path.join(home, `script-${runs++}.json`);
    await writeFile(file, JSON.stringify(script));
    const args = ["--provider", "scripted", "--script", file, ...storeArgs, "--max-context-size", "4000", "--compaction", "preserve-recent", "-p", prompt, ...more];
    const result = await runKosong(args, { cwd, home });
    expect(result.code, result.stderr).toBe(0);
  };
  await run("read the config", [call("c1", "ReadFile", { path: "config.ts" }), "text: read"]);
  // The provider reports 3,500 tokens: past the threshold (3,000), so the next step compacts first.
  await run("keep the port in mind", ['text: noted\nusage: {"input_other": 3500, "output": 1}'], ["--continue"]);
  await run("which port?", [call("r1", "Recall", { path: "./config.ts", query: "DATABASE_PORT" }), "text: 54329"], ["--continue"]);
  const after = await messagesOf();
  const notice = after.find((m) => extractText(m).startsWith("<system>Earlier parts of this conversation were compacted:"));
  expect(notice).toBeDefined();
  expect(extractText(after.find((m) => m.tool_call_id === "c1") ?? { content: [] })).not.toContain("DATABASE_PORT");
  expect(extractText(after.find((m) => m.tool_call_id === "r1")!)).toContain("export const DATABASE_PORT = 54329;");

  const pointer = /\br1:\d+(?:-\d+)?\b/.exec(extractText(notice!))![0];
  await run("show me that part again", [call("r2", "Recall", { pointer }), "text: there"], ["--continue"]);
  const recalled = extractText((await messagesOf()).find((m) => m.tool_call_id === "r2")!);
  expect(recalled).toContain("export const DATABASE_PORT = 54329;");
  expect(recalled).toContain("read the config");
}
