/**
 * Background jobs and /export in a real terminal (tmux), the built binary
 * against the fake provider server: `/tasks` lists a job with its state;
 * a job that ends while the agent is idle reaches the model with the next
 * prompt; `/export html` writes the page; `/exit` ends the job.
 *
 * It stays a tmux test of the binary: it checks that real processes end
 * with kosong.
 */
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { devServer, processesWith } from "./dev-server.js";
import { callTool, say, usage } from "./fake-model.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

// Under /var/tmp: a sandboxed command has a private /tmp.
const tempDir = useTempDirs("/var/tmp");
const { server, terminals } = await kosongSuite({ tmux: true });

const waitForFile = async (file: string) => {
  for (let i = 0; i < 200; i++) {
    if (await access(file).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file} never appeared`);
};

describe("background jobs in a real terminal (tmux)", { timeout: 90_000 }, () => {
  it("/tasks lists the job, its end reaches the model with the next prompt, /export writes the page, /exit ends the jobs", async () => {
    const home = await tempDir("kosong-jobs-tmux-");
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const marker = `devserver-${path.basename(home)}.cjs`;
    await writeFile(path.join(cwd, marker), devServer);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model", "--yolo"], { cwd, env, width: 140, height: 50 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);

    server.enqueue(
      { message: callTool("s1", "Shell", { command: `${process.execPath} ${marker}`, run_in_background: true }), usage },
      { message: callTool("s2", "Shell", { command: `${process.execPath} ${marker}`, run_in_background: true }), usage },
      { message: say("Both servers started."), usage },
    );
    terminal.line("start the dev servers");
    await terminal.waitFor(/Both servers started\.[\s\S]*›\s*$/, { from: "› start the dev servers" });
    terminal.line("/tasks");
    const listed = await terminal.waitFor(/Job job-2 [^\n]*: running[\s\S]*›\s*$/, { from: "› /tasks" });
    expect(listed).toMatch(/Job job-1 \(.*devserver-.*\): running/);
    expect(listed).toMatch(/jobs\/job-1\.log/);

    // Both servers see the quit file and end while the agent waits for input.
    await writeFile(path.join(cwd, "quit"), "");
    await waitForFile(path.join(cwd, "server.done"));
    // The first server to quit writes server.done: let both end, and kosong see them end, before /tasks lists them.
    for (let i = 0; i < 100 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 50));
    terminal.line("/tasks");
    await terminal.waitFor(/Job job-2 [^\n]*: exited with code 3[\s\S]*›\s*$/, { from: "› /tasks" });
    server.enqueue({ message: say("Noted: they ended."), usage });
    terminal.line("anything new?");
    await terminal.waitFor(/Noted: they ended\.[\s\S]*›\s*$/, { from: "› anything new?" });
    const prompt = JSON.stringify(server.requests.at(-1)!.body!.messages);
    expect(prompt).toMatch(/Background job job-1 exited with code 3/);
    expect(prompt).toMatch(/Background job job-2 exited with code 3/);

    terminal.line("/export html chat.html");
    await terminal.waitFor(/Exported to .*chat\.html\.[\s\S]*›\s*$/, { from: "› /export" });
    const page = await readFile(path.join(cwd, "chat.html"), "utf8");
    expect(page).toContain("anything new?");
    expect(page).not.toContain("<script");

    // A third job left running ends with the session.
    server.enqueue({ message: callTool("s3", "Shell", { command: `rm -f quit; ${process.execPath} ${marker}`, run_in_background: true }), usage }, { message: say("Third one up."), usage });
    terminal.line("one more");
    await terminal.waitFor(/Third one up\.[\s\S]*›\s*$/, { from: "› one more" });
    for (let i = 0; i < 100 && processesWith(marker).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(marker).length).toBeGreaterThan(0);
    terminal.line("/exit");
    for (let i = 0; i < 100 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(marker)).toEqual([]);
  });
});
