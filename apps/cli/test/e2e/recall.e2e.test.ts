/**
 * Tool-result aging through the built binary against the fake OpenAI
 * server: in print mode a long run ages its old tool outputs instead of
 * compacting, says so, and the model can Recall them; after a compaction on
 * the file store, Recall brings back a file's last view and a dropped range
 * (the same scenario as `--store` in recall-postgres.e2e.test.ts).
 * `/compact`, Recall and `/context` in the terminal: test/interactive/recall.test.ts.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Message, parseMessage } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { recallAfterCompaction } from "./recall-after-compaction.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const callTool = (id: string, name: string, args: object): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }] });

/** The tool messages of the `n`th request, by call id. */
function toolResults(n: number): Record<string, string> {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string | { type: string; text?: string }[]; tool_call_id?: string }[];
  const text = (content: (typeof messages)[number]["content"]) => (typeof content === "string" ? content : content.map((part) => part.text ?? "").join(""));
  return Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, text(m.content)]));
}



describe("tool-result aging in print mode", { timeout: 120_000 }, () => {
  it("ages the oldest tool outputs at the threshold instead of compacting, tells the user, and the model can Recall them", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const file = (n: number) => Array.from({ length: 250 }, (_, i) => `export const value_${n}_${i} = "${n * 1000 + i} ${"lorem ipsum dolor sit amet ".repeat(2)}";`).join("\n");
    for (let n = 0; n < 10; n++) await writeFile(path.join(cwd, `f${n}.ts`), file(n));
    // Small usage until the tenth read, whose request reports 14,000 tokens: with the tenth output that passes 15,000 (75 % of the 20,000 window).
    for (let n = 0; n < 10; n++) server.enqueue({ message: callTool(`c${n}`, "ReadFile", { path: `f${n}.ts` }), usage: { ...usage, input_other: n === 9 ? 14_000 : 1000 } });
    // The first output is message 2 of the conversation (after the prompt and the call): its pointer is r1:2.
    server.enqueue({ message: callTool("back", "Recall", { pointer: "r1:2" }), usage }, { message: say("Read them all."), usage });
    const run = await runKosong(["-p", "read f0.ts to f9.ts", "--model", "test-model", "--max-context-size", "20000", "--output-format", "stream-json"], {
      cwd,
      home,
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` },
    });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout.trim().split("\n").map((line) => parseEvent(line));
    expect(events.filter((e) => e.type === "CompactionBegin").map((e) => e.payload)).toEqual([{ reason: "auto", strategy: "tool-result-aging" }]);
    const end = events.find((e) => e.type === "CompactionEnd");
    expect(end?.type === "CompactionEnd" && end.payload.details?.notes.join("\n")).toMatch(/^Aged \d old tool outputs \(about \d+ tokens\) into excerpts; Recall brings them back \(r1:\d+/);
    const last = toolResults(server.requests.length - 1);
    expect(last.c0).toMatch(/^<system>Old tool output aged out of the context \(\d+ tokens\): its start and end follow; Recall r1:\d+ brings back the whole\.<\/system>/);
    expect(last.c9).toContain("value_9_249");
    expect(last.c0).not.toContain("value_0_20 = ");
    expect(last.back).toContain("value_0_20 = ");
    // No summary was asked for: every request was a step of the turn.
    expect(server.requests.length).toBe(12);
  });
});

describe("Recall on the file store", { timeout: 90_000 }, () => {
  it("brings back a file's last view and a dropped range after a compaction kept in the session's file", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const messagesOf = async (): Promise<Message[]> => {
      const sessions = path.join(home, ".kosong", "sessions");
      const [id] = await readdir(sessions);
      const lines = (await readFile(path.join(sessions, id!, "context.jsonl"), "utf8")).split("\n").filter((line) => line !== "");
      return lines.map((line) => JSON.parse(line) as { role: string }).filter((record) => !record.role.startsWith("_")).map((record) => parseMessage(record));
    };
    await recallAfterCompaction(home, cwd, [], messagesOf);
  });
});
