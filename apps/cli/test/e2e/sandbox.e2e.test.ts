/**
 * The Shell sandbox (bubblewrap), through the built binary against the fake
 * provider server: a sandboxed command cannot write outside the workspace
 * (directly, through `git log --output`, a symlink, `/proc/self/root`, nor
 * into `.git/hooks` or `.git/config`), cannot read `~/.ssh` or kosong's
 * config and session folders, reaches a local server only when
 * `sandbox.network` allows its host; `sandbox = "auto-allow"` runs it
 * unasked (print mode and a terminal), leaving the sandbox is asked for
 * with the model's reason; an MCP stdio server with `"sandbox": true` is
 * confined too; and without bwrap on the PATH the CLI says so at start-up
 * and asks as before.
 *
 * The folders live under /var/tmp, not /tmp: a sandbox has a private /tmp,
 * which would hide writes to /tmp paths whatever else held.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Message } from "@kosong/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { ensureBubblewrap } from "../ensure-bubblewrap.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const { server, terminals } = await kosongSuite({ tmux: true });
const bwrap = ensureBubblewrap();
const require = createRequire(import.meta.url);

const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const shell = (id: string, args: object): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name: "Shell", arguments: JSON.stringify(args) } }] });
const openai = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };

const tempDir = useTempDirs("/var/tmp");

/** A fake HOME under /var/tmp with a secret key, kosong's config (with `config`), a folder outside the workspace, and a git repository as the workspace. */
async function setup(config = "") {
  const home = await tempDir("kosong-sandbox-e2e-");
  const cwd = path.join(home, "project");
  const outside = path.join(home, "outside");
  await mkdir(cwd);
  await mkdir(outside);
  await mkdir(path.join(home, ".ssh"));
  await writeFile(path.join(home, ".ssh", "id_ed25519"), "SSH-KEY-SECRET\n");
  await mkdir(path.join(home, ".aws"));
  await writeFile(path.join(home, ".aws", "credentials"), "AWS-SECRET\n");
  await mkdir(path.join(home, ".kosong"));
  await writeFile(path.join(home, ".kosong", "config.toml"), `# CONFIG-MARKER\n${config}\n`);
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "ignore" });
  git("init", "-q");
  await writeFile(path.join(cwd, "a.txt"), "a\n");
  git("add", ".");
  git("commit", "-qm", "first");
  await symlink(outside, path.join(cwd, "link-out"));
  const run = (args: string[], env: Record<string, string> = {}) => runKosong(args, { cwd, home, env: { ...openai, ...env } });
  return { home, cwd, outside, run };
}

/** The output of the tool result `id` in the last request the server received. */
function toolOutput(id: string): string {
  const messages = server.requests.at(-1)!.body!.messages as { role: string; content?: unknown; tool_call_id?: string }[];
  const result = messages.find((m) => m.role === "tool" && m.tool_call_id === id);
  expect(result, `no result of ${id}`).toBeDefined();
  return JSON.stringify(result!.content);
}

/** Every way out the test tries, one command each (a failing one does not stop the next). */
const escapes = [
  "touch ../outside/direct",
  "echo x > link-out/via-link",
  "git log -1 --output=$HOME/outside/git-log",
  "echo x > /proc/self/root$HOME/outside/via-proc",
  "echo 'touch $HOME/outside/hook-ran' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout",
  "echo '[core]' >> .git/config",
].join("; ");
const reads = "cat ~/.ssh/id_ed25519; cat ~/.aws/credentials; cat ~/.kosong/config.toml; grep -rho 'SESSION-MARKE[R]' ~/.kosong/sessions";

describe("the Shell sandbox (bubblewrap)", { timeout: 90_000 }, () => {
  it("keeps writes in the workspace and its temp folder, and hides ~/.ssh and kosong's config and sessions", async () => {
    expect(bwrap).not.toBe("");
    const { home, cwd, outside, run } = await setup();
    const gitConfig = await readFile(path.join(cwd, ".git", "config"), "utf8");
    // A first session leaves its files for the second to look for.
    server.enqueue({ message: say("Noted."), usage });
    expect((await run(["-p", "SESSION-MARKER"])).code).toBe(0);
    server.enqueue(
      { message: shell("w", { command: `${escapes}; echo inside > inside.txt; echo temp > /tmp/t && cat /tmp/t` }), usage },
      { message: shell("r", { command: reads }), usage },
      { message: say("Done."), usage },
    );
    const result = await run(["-p", "try to get out", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    for (const name of ["direct", "via-link", "git-log", "via-proc", "hook-ran"]) expect(existsSync(path.join(outside, name)), name).toBe(false);
    expect(existsSync(path.join(cwd, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(await readFile(path.join(cwd, ".git", "config"), "utf8")).toBe(gitConfig);
    expect(await readFile(path.join(cwd, "inside.txt"), "utf8")).toBe("inside\n");
    expect(toolOutput("w")).toContain("temp");
    expect(toolOutput("w")).toContain("Read-only file system");
    const read = toolOutput("r");
    for (const secret of ["SSH-KEY-SECRET", "AWS-SECRET", "CONFIG-MARKER", "SESSION-MARKER"]) expect(read).not.toContain(secret);
    expect(existsSync(path.join(home, ".ssh", "id_ed25519"))).toBe(true);
  });

  it("with --sandbox off, the same commands get out and read the secrets (what the sandbox stops)", async () => {
    const { outside, run } = await setup();
    server.enqueue({ message: say("Noted."), usage });
    expect((await run(["-p", "SESSION-MARKER"])).code).toBe(0);
    server.enqueue({ message: shell("w", { command: escapes }), usage }, { message: shell("r", { command: reads }), usage }, { message: say("Done."), usage });
    const result = await run(["-p", "try to get out", "--yolo", "--sandbox", "off"]);
    expect(result.code, result.stderr).toBe(0);
    for (const name of ["direct", "via-link", "git-log", "via-proc"]) expect(existsSync(path.join(outside, name)), name).toBe(true);
    for (const secret of ["SSH-KEY-SECRET", "AWS-SECRET", "CONFIG-MARKER", "SESSION-MARKER"]) expect(toolOutput("r")).toContain(secret);
  });

  it("runs in the real folder of a workspace that is a symlink, its parent read-only", async () => {
    const { home, cwd } = await setup();
    const linked = path.join(home, "linked-project");
    await symlink(cwd, linked);
    server.enqueue({ message: shell("s", { command: "touch ../from-link; touch made-here; pwd" }), usage }, { message: say("Done."), usage });
    const result = await runKosong(["-p", "touch", "--yolo"], { cwd: linked, home, env: openai });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(home, "from-link"))).toBe(false);
    expect(existsSync(path.join(cwd, "made-here"))).toBe(true);
  });

  describe("network", () => {
    let local: Server;
    let port: number;
    beforeAll(async () => {
      local = createServer((_request, response) => response.end("HELLO-FROM-THE-HOST\n"));
      await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
      port = (local.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => local.close(() => resolve())));
    const fetches = () => `curl -sS -m 5 http://127.0.0.1:${port}/ 2>&1; echo; curl -sS -m 5 -p http://127.0.0.1:${port}/ 2>&1; echo; curl -sS -m 5 http://localhost:${port}/ 2>&1`;

    it("is off by default: a server on 127.0.0.1 cannot be reached", async () => {
      const { run } = await setup();
      server.enqueue({ message: shell("n", { command: fetches() }), usage }, { message: say("Done."), usage });
      const result = await run(["-p", "fetch", "--yolo"]);
      expect(result.code, result.stderr).toBe(0);
      expect(toolOutput("n")).not.toContain("HELLO-FROM-THE-HOST");
    });

    it("reaches an allowed host through kosong's proxy (plain HTTP and CONNECT), and no other", async () => {
      const { run } = await setup('[sandbox]\nnetwork = ["127.0.0.1"]');
      server.enqueue({ message: shell("n", { command: fetches() }), usage }, { message: say("Done."), usage });
      const result = await run(["-p", "fetch", "--yolo"]);
      expect(result.code, result.stderr).toBe(0);
      const output = toolOutput("n");
      expect(output.split("HELLO-FROM-THE-HOST").length - 1).toBe(2);
      expect(output).toContain(`kosong's sandbox does not allow localhost:${port}`);
    });

    it("is the machine's with network = true", async () => {
      const { run } = await setup("[sandbox]\nnetwork = true");
      server.enqueue({ message: shell("n", { command: `curl -sS -m 5 http://127.0.0.1:${port}/ 2>&1` }), usage }, { message: say("Done."), usage });
      const result = await run(["-p", "fetch", "--yolo"]);
      expect(result.code, result.stderr).toBe(0);
      expect(toolOutput("n")).toContain("HELLO-FROM-THE-HOST");
    });
  });

  it('auto-allow runs a sandboxed command without asking; leaving the sandbox is asked for, with the reason', async () => {
    const { cwd, run } = await setup('sandbox = "auto-allow"');
    server.enqueue(
      { message: shell("in", { command: "echo made > made.txt" }), usage },
      { message: shell("out", { command: "touch ../outside/left", outside_sandbox: true, reason: "needs the docker socket" }), usage },
      { message: say("Done."), usage },
    );
    const result = await run(["-p", "make a file"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(cwd, "made.txt"), "utf8")).toBe("made\n");
    expect(result.stderr).toBe("kosong: 1 tool call refused without --yolo (print mode cannot ask): Shell: Run outside the sandbox (reason: needs the docker socket): touch ../outside/left\n");
  });

  // In a checkout under /tmp (CI clones into mktemp -d) the server is installed under the machine's /tmp: it still starts in the sandbox.
  const fsServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
  it('runs an MCP stdio server with "sandbox": true in the sandbox', async () => {
    const { home, cwd, outside, run } = await setup();
    const config = path.join(home, "mcp.json");
    await writeFile(config, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [fsServer, home], sandbox: true } } }));
    const call = (id: string, tool: string, args: object): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name: `mcp__fs__${tool}`, arguments: JSON.stringify(args) } }] });
    server.enqueue(
      { message: call("out", "write_file", { path: path.join(outside, "from-mcp"), content: "x" }), usage },
      { message: call("in", "write_file", { path: path.join(cwd, "from-mcp"), content: "x" }), usage },
      { message: call("key", "read_text_file", { path: path.join(home, ".ssh", "id_ed25519") }), usage },
      { message: say("Done."), usage },
    );
    const result = await run(["-p", "write", "--yolo", "--mcp-config-file", config]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(outside, "from-mcp"))).toBe(false);
    expect(existsSync(path.join(cwd, "from-mcp"))).toBe(true);
    expect(toolOutput("key")).not.toContain("SSH-KEY-SECRET");
  });

  it("in a terminal, auto-allow runs a sandboxed command unasked and asks, with the reason, to leave the sandbox", async () => {
    const { home, cwd } = await setup('sandbox = "auto-allow"');
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model"], { cwd, env: cleanEnv(home, openai), width: 200 });
    terminals.push(terminal);
    const start = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(start).not.toContain("without a sandbox");
    server.enqueue(
      { message: shell("in", { command: "touch inside.txt" }), usage },
      { message: shell("out", { command: "touch ../outside/left", outside_sandbox: true, reason: "writes next to the project" }), usage },
    );
    terminal.line("make files");
    const screen = await terminal.waitFor(/approve\? $/m, { from: "› make files" });
    expect(screen).toMatch(/✓ Shell\(touch inside\.txt\)/);
    expect(screen.split("wants to:").length - 1).toBe(1);
    expect(screen).toContain("Shell wants to: Run outside the sandbox (reason: writes next to the project): touch ../outside/left");
    expect(screen).toContain("[a] approve this exact command outside the sandbox for this session");
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› make files" });
    expect(existsSync(path.join(cwd, "inside.txt"))).toBe(true);
    expect(existsSync(path.join(home, "outside", "left"))).toBe(false);
  });

  it("without bwrap on the PATH, says so at start-up and asks for a command as before", async () => {
    const { home, cwd } = await setup('sandbox = "auto-allow"');
    const bin = path.join(home, "bin");
    await mkdir(bin);
    for (const tool of ["bash", "touch", "git"]) await symlink(execFileSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim(), path.join(bin, tool));
    const env = cleanEnv(home, { ...openai, PATH: bin });
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model"], { cwd, env, width: 200 });
    terminals.push(terminal);
    const start = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(start).toContain("Shell commands run without a sandbox: bubblewrap (bwrap) is not installed");
    expect(start).toContain('They ask for approval as before (sandbox = "auto-allow" needs the sandbox)');
    server.enqueue({ message: shell("s", { command: "touch asked.txt" }), usage }, { message: say("Done."), usage });
    terminal.line("make a file");
    const screen = await terminal.waitFor(/approve\? $/m, { from: "› make a file" });
    expect(screen).toContain("Shell wants to: Run: touch asked.txt");
    terminal.line("y");
    await terminal.waitFor(/Done\.[\s\S]*›\s*$/, { from: "› make a file" });
    expect(existsSync(path.join(cwd, "asked.txt"))).toBe(true);
  });
});
