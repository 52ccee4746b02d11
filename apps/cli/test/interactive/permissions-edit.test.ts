/**
 * Editing permission rules with `/permissions` on an emulated terminal (in process), against the fake provider server: a rule added at the
 * user level is saved to the user's config.toml (its comments and other
 * keys kept) and lets a matching call run unasked at once; a removed rule
 * leaves the file and asks again; project rules are neither added nor
 * removed in an untrusted workspace; in a trusted one, an added rule goes to
 * `.kosong/settings.json`, a removed one leaves the Claude Code file it came
 * from (its other keys kept), and the workspace stays trusted: the next run
 * (print mode, which asks nothing) uses the added rule.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, runKosong } from "../e2e/kosong-binary.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite({ binary: true });

const ready = /Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m;
const trustQuestion = /Trust this workspace and use its permission rules\? \(remembered until they change\) \[y\/N\] $/m;
const userConfig = `# my settings: keep this comment
yolo = false

[permissions]
allow = ["Shell(echo kept:*)"] # kept until removed
`;

describe("/permissions edits the rules (in process)", { timeout: 120_000 }, () => {
  it("adds and removes user rules in config.toml, and project rules only in a trusted workspace", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    await mkdir(path.join(home, ".kosong"));
    const configFile = path.join(home, ".kosong", "config.toml");
    await writeFile(configFile, userConfig);
    const claudeFile = path.join(cwd, ".claude", "settings.json");
    await writeFile(claudeFile, JSON.stringify({ env: { KEEP: "1" }, permissions: { deny: ["Bash(echo nope:*)"] } }));
    const projectFile = path.join(cwd, ".kosong", "settings.json");
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
    const start = () => {
      const terminal = KosongTerminal.start(["--model", "test-model", "--sandbox", "off"], { cwd, env: cleanEnv(home, env), width: 220 });
      terminals.push(terminal);
      return terminal;
    };
    const command = async (terminal: KosongTerminal, line: string, expected: RegExp) => {
      terminal.line(line);
      return terminal.waitFor(new RegExp(`${expected.source}[\\s\\S]*›\\s*$`), { from: `› ${line}` });
    };

    // Untrusted: user rules are edited, project rules are not.
    let terminal = start();
    await terminal.waitFor(trustQuestion);
    terminal.line("n");
    await terminal.waitFor(ready);
    let screen = await command(terminal, "/permissions", /allow\s+1\. Shell\(echo kept:\*\)/);
    expect(screen).toContain(configFile);
    expect(screen).not.toContain("echo nope");
    screen = await command(terminal, "/permissions project allow Shell(echo proj:*)", /not trusted/);
    expect(existsSync(projectFile)).toBe(false);

    await command(terminal, "/permissions allow Shell(echo added:*)", /Added `allow: Shell\(echo added:\*\)` to/);
    let saved = await readFile(configFile, "utf8");
    expect(saved).toContain("# my settings: keep this comment");
    expect(saved).toContain("# kept until removed");
    expect(saved).toContain('allow = ["Shell(echo kept:*)", "Shell(echo added:*)"]');
    server.enqueue({ message: callTool("s1", "Shell", { command: "echo added now" }), usage }, { message: say("Ran it."), usage });
    terminal.line("run added");
    screen = await terminal.waitFor(/Ran it\.[\s\S]*›\s*$/, { from: "› run added" });
    expect(screen).not.toContain("approve?");

    screen = await command(terminal, "/permissions remove 1", /Removed `allow: Shell\(echo kept:\*\)`/);
    saved = await readFile(configFile, "utf8");
    expect(saved).toContain('allow = ["Shell(echo added:*)"] # kept until removed');
    expect(saved).toContain("yolo = false");
    server.enqueue({ message: callTool("s2", "Shell", { command: "echo kept again" }), usage });
    terminal.line("run kept");
    await terminal.waitFor(/approve\? $/m, { from: "› run kept" });
    terminal.line("n");
    await terminal.waitFor(/›\s*$/, { from: "approve? n" });
    terminal.keys("C-d");

    // Trusted: project rules are listed, added to .kosong/settings.json, removed from the file they came from.
    terminal = start();
    await terminal.waitFor(trustQuestion);
    terminal.line("y");
    await terminal.waitFor(ready);
    screen = await command(terminal, "/permissions", /allow\s+2\. Shell\(echo added:\*\)/);
    expect(screen).toMatch(/deny\s+1\. Bash\(echo nope:\*\)\s+\.claude[/]settings\.json \(project\)/);
    await command(terminal, "/permissions project allow Shell(echo proj:*)", /Added `allow: Shell\(echo proj:\*\)` to/);
    expect(JSON.parse(await readFile(projectFile, "utf8"))).toEqual({ permissions: { allow: ["Shell(echo proj:*)"] } });
    await command(terminal, "/permissions remove 1", /Removed `deny: Bash\(echo nope:\*\)`/);
    expect(JSON.parse(await readFile(claudeFile, "utf8"))).toEqual({ env: { KEEP: "1" }, permissions: { deny: [] } });
    terminal.keys("C-d");
    await terminal.waitFor(/\[exit 0\]/);

    // The user's own edits keep the workspace trusted: print mode (which never asks) uses the project rule.
    server.reset();
    server.enqueue({ message: callTool("s3", "Shell", { command: "echo proj later" }), usage }, { message: say("Done."), usage });
    const later = await runKosong(["-p", "again", "--sandbox", "off", "--output-format", "stream-json"], { cwd, home, env });
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).not.toContain("not trusted");
    const result = later.stdout
      .trim()
      .split("\n")
      .map((line) => parseEvent(line))
      .find((event) => event.type === "ToolResult");
    expect(result?.type === "ToolResult" && result.payload.return_value.is_error).toBe(false);
    expect(JSON.stringify(result)).toContain("proj later");
  });
});
