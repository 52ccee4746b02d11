/**
 * Re-expandable compaction, `/context` and range compaction in the
 * interactive mode (in process, on an emulated terminal) against the fake
 * OpenAI server: after `/compact` the model's `Recall` brings back the
 * dropped range (by the pointer the compaction left) and a file's last view
 * (by its path), shown like any tool; `/context` breaks the window down;
 * `/compact from <id>` compacts only from that checkpoint on. Tool-result
 * aging in print mode: recall.e2e.test.ts.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const callTool = (id: string, name: string, args: object): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }] });
const CONFIG = Array.from({ length: 120 }, (_, i) => (i === 70 ? "export const DATABASE_PORT = 54329;" : `// config line ${i}: nothing to see here`)).join("\n");

/** The tool messages of the `n`th request, by call id. */
function toolResults(n: number): Record<string, string> {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string | { type: string; text?: string }[]; tool_call_id?: string }[];
  const text = (content: (typeof messages)[number]["content"]) => (typeof content === "string" ? content : content.map((part) => part.text ?? "").join(""));
  return Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, text(m.content)]));
}

/** The text of the session's context.jsonl (the only one under the home). */
async function contextFile(home: string): Promise<string> {
  const root = path.join(home, ".kosong");
  const found = (await readdir(root, { recursive: true })).find((f) => f.endsWith("context.jsonl"));
  return readFile(path.join(root, found!), "utf8");
}

describe("Recall, /context and range compaction in the interactive mode (in process)", { timeout: 120_000 }, () => {
  it("brings back what /compact dropped by pointer and by path, breaks the window down, and compacts from a checkpoint", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "config.ts"), CONFIG);
    await writeFile(path.join(cwd, "AGENTS.md"), "Use pnpm. ".repeat(50));
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model", "--compaction-threshold", "70%"], { cwd, env });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);

    server.enqueue({ message: callTool("c1", "ReadFile", { path: "config.ts" }), usage }, { message: say("Read config.ts."), usage });
    terminal.line("read the config");
    await terminal.waitFor(/Read config\.ts\.[\s\S]*›\s*$/, { from: "› read the config" });
    server.enqueue({ message: say("Noted."), usage });
    terminal.line("keep the port in mind");
    await terminal.waitFor(/Noted\.[\s\S]*›\s*$/, { from: "› keep the port in mind" });

    // /context: each part of the window, the threshold at 70 % of it.
    terminal.line("/context");
    let screen = await terminal.waitFor(/reserve[\s\S]*›\s*$/, { from: "› /context" });
    expect(screen).toMatch(/context window 128k · used [\d.k]+ \(\d+%\) · compaction at [\d.]+k \(70%\)/);
    for (const part of ["system prompt", "project files", "tool definitions", "messages", "tool results", "summaries", "free", "reserve"]) expect(screen).toContain(part);
    expect(screen).toMatch(/tool definitions +[\d.k]+ \(\d+%\) +\d+ tools/);
    expect(screen).toMatch(/summaries +0 \(0%\)/);

    // /compact (the default strategy summarises with the model): the old conversation is a rotation, a pointer names it.
    server.enqueue({ message: say("Summary: the user read config.ts."), usage });
    terminal.line("/compact");
    await terminal.waitFor(/compacted: [\s\S]*recall pointers[\s\S]*›\s*$/, { from: "› /compact" });
    const pointer = /r1:\d+(?:-\d+)?/.exec(await contextFile(home))![0];

    server.enqueue(
      { message: callTool("r1", "Recall", { pointer }), usage },
      { message: callTool("r2", "Recall", { path: path.join(cwd, "config.ts"), query: "DATABASE_PORT" }), usage },
      { message: say("The port is 54329."), usage },
    );
    terminal.line("which port?");
    screen = await terminal.waitFor(/The port is 54329\.[\s\S]*›\s*$/, { from: "› which port?" });
    expect(screen).toContain(`✓ Recall(${pointer}) → Recalled ${pointer}`);
    expect(screen).toMatch(/✓ Recall\(\/.*config\.ts\) → Recalled \/.*config\.ts/);
    const requests = server.requests.length;
    expect(toolResults(requests - 2).r1).toContain("export const DATABASE_PORT = 54329;");
    expect(toolResults(requests - 2).r1).toContain("read the config");
    expect(toolResults(requests - 1).r2).toContain("export const DATABASE_PORT = 54329;");

    // After the compaction, its summary and pointer notice are counted as summaries.
    terminal.line("/context");
    await terminal.waitFor(/› \/context[\s\S]*summaries +[1-9][\d.]*k? \(\d+%\)[\s\S]*reserve/, { from: "› which port?" });

    // /compact from a checkpoint: only the later part is summarised, the earlier stays verbatim.
    terminal.line("/checkpoints all");
    screen = await terminal.waitFor(/checkpoint \d+ ·[\s\S]*›\s*$/, { from: "› /checkpoints all" });
    const ids = [...screen.matchAll(/checkpoint (\d+) ·/g)].map((m) => Number(m[1]));
    const before = ids.at(-3)!;
    server.enqueue({ message: say("Summary: recalled the port."), usage });
    terminal.line(`/compact from ${before} keep the port`);
    await terminal.waitFor(/compacted: [\s\S]*›\s*$/, { from: `› /compact from ${before}` });
    const summaryRequest = JSON.stringify(server.requests.at(-1)!.body);
    expect(summaryRequest).toContain("keep the port");
    expect(summaryRequest).toContain("Recall(");
    expect(summaryRequest).not.toContain("Summary: the user read config.ts.");
    const lines = (await contextFile(home)).split("\n");
    expect(lines.some((l) => l.includes("Summary: the user read config.ts."))).toBe(true);
    expect(lines.some((l) => l.includes("Summary: recalled the port."))).toBe(true);

    terminal.line("/compact from x");
    await terminal.waitFor(/Usage: \/compact from <checkpoint>/, { from: "› /compact from x" });
  });
});

