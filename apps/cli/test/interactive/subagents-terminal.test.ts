/**
 * A child agent on an emulated terminal (in process), against the
 * fake provider server: the child's write asks for approval at the prompt,
 * named by the child; the child shows as one block (its header with status
 * and steps, its latest step; Ctrl-O at the prompt shows every step and its answer); `/agents` lists it with its status and opens its
 * transcript; `/revert` to the checkpoint before the call restores the file
 * the child wrote, and detaches the child (its conversation kept as a
 * rotation, which `/agents restore` brings back). Ctrl-C while a child
 * streams shows it aborted, as `/agents` lists it, not failed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

/** kosong started in a new project holding `files`, at its first prompt. */
async function startKosong(files: Record<string, string>): Promise<{ cwd: string; terminal: KosongTerminal }> {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(cwd, name), text);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
  const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width: 110, height: 50 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  return { cwd, terminal };
}

describe("a child agent on an emulated terminal (in process)", () => {
  it("shows the child's steps under its call, lists it in /agents, and /revert past the call restores the file it wrote", async () => {
    const { cwd, terminal } = await startKosong({ "notes.txt": "original\n" });

    server.enqueue(
      { message: callTool("call_a", "Agent", { description: "rewrite notes", prompt: "Replace notes.txt with 'by the child'", subagent_type: "coder" }), usage },
      { message: callTool("w1", "WriteFile", { path: "notes.txt", content: "by the child\n" }), usage },
      { message: say("notes.txt rewritten"), usage },
      { message: say("The child rewrote the notes."), usage },
    );
    terminal.line("rewrite the notes with a helper");
    // The child's write asks you, as any write does, named by the child.
    const asked = await terminal.waitFor(/approve\? $/m, { from: "› rewrite the notes" });
    expect(asked).toContain("? coder/WriteFile wants to:");
    terminal.line("y");
    const screen = await terminal.waitFor(/The child rewrote the notes\.[\s\S]*›\s*$/, { from: "› rewrite the notes" });
    // One block, collapsed: its header (status, steps, tool calls) and its latest step; Ctrl-O shows every step and the answer.
    expect(screen).toMatch(/✓ Agent\(rewrite notes\) · coder done · 2 steps · 1 tool call\n {2}└ ✓ WriteFile\(notes\.txt\)/);
    expect(screen).not.toContain("│ coder:");
    terminal.keys("C-o");
    await terminal.waitFor(/── Agent\(rewrite notes\): whole output[^\n]*──\nagent-[0-9a-f]{8} · coder done[^\n]*\n1\. ✓ WriteFile\(notes\.txt\)[^\n]*\nanswer:\nnotes\.txt rewritten\n──\n›\s*$/, { from: "The child rewrote the notes." });
    expect(await readFile(path.join(cwd, "notes.txt"), "utf8")).toBe("by the child\n");

    terminal.line("/agents");
    const listed = await terminal.waitFor(/\/agents <id> shows one's transcript\.\n›\s*$/, { from: "› /agents" });
    const id = /(agent-[0-9a-f]{8})\s+coder\s+finished\s+rewrite notes/.exec(listed)?.[1];
    expect(id, listed).toBeDefined();
    // What the child used is listed with it (no cost: the test model has no price).
    expect(listed).toMatch(new RegExp(`${id}\\s+coder\\s+finished\\s+rewrite notes · [1-9]\\d* tokens\n`));
    terminal.line(`/agents ${id}`);
    const transcript = await terminal.waitFor(/notes\.txt rewritten\n›\s*$/, { from: `› /agents ${id}` });
    expect(transcript).toContain("Replace notes.txt with 'by the child'");
    expect(transcript).toMatch(/assistant → WriteFile\(/);

    terminal.line("/revert 0");
    await terminal.waitFor(/↺ notes\.txt[\s\S]*Revert the conversation and these files\? \[y\/N\]/, { from: "› /revert 0" });
    terminal.line("y");
    const reverted = await terminal.waitFor(/Reverted to checkpoint 0[\s\S]*›\s*$/, { from: "› /revert 0" });
    expect(reverted).toContain(`detached agent ${id} (coder)`);
    expect(await readFile(path.join(cwd, "notes.txt"), "utf8")).toBe("original\n");

    terminal.line("/agents");
    await terminal.waitFor(new RegExp(`${id}\\s+coder\\s+detached`), { from: "Reverted to checkpoint 0" });
    terminal.line(`/agents restore ${id}`);
    await terminal.waitFor(/conversation is back \(4 messages\)/, { from: `› /agents restore ${id}` });
  }, 60_000);

  it("shows a child the user stopped with Ctrl-C as aborted, as /agents lists it, not as failed", async () => {
    const { terminal } = await startKosong({});

    server.enqueue(
      { message: callTool("call_a", "Agent", { description: "look around", prompt: "Look around", subagent_type: "explore" }), usage },
      // The child's answer stalls after its first words, until kosong leaves the stream.
      { message: { role: "assistant", content: [{ type: "text", text: "looking " }, { type: "text", text: "END" }] }, usage, holdAfter: 2 },
    );
    terminal.line("look around with a helper");
    await terminal.waitFor(/Agent\(look around\) · explore running/, { from: "› look around" });
    await vi.waitFor(() => expect(server.requests).toHaveLength(2));
    terminal.keys("C-c");
    const screen = await terminal.waitFor(/■ interrupted\n[\s\S]*›\s*$/, { from: "› look around" });
    expect(screen).toMatch(/■ Agent\(look around\) · explore aborted · /);
    expect(screen).not.toContain("explore failed");

    terminal.line("/agents");
    await terminal.waitFor(/agent-[0-9a-f]{8}\s+explore\s+aborted\s+look around/, { from: "› /agents" });
  }, 60_000);
});
