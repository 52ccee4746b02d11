/**
 * Workspace hooks and trust on an emulated terminal (in process), against the fake provider server: a workspace's `.claude/settings.json`
 * hook is shown and asked about at start-up; after "no" it does not run
 * (and is asked again next time); after "yes" it runs and is not asked
 * about again; when the workspace's hooks change, the user is asked again.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { say, usage } from "../e2e/fake-model.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const ready = /Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m;
const question = /Trust this workspace and run its hooks\? \(remembered until they change\) \[y\/N\] $/m;

describe("workspace hooks run only once the workspace is trusted (in process)", { timeout: 120_000 }, () => {
  it("asks with the commands shown, runs nothing on no, remembers yes, and asks again when the hooks change", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    const log = path.join(home, "ran.log");
    const writeHooks = (commands: string[]) =>
      writeFile(path.join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: commands.map((command) => ({ type: "command", command })) }] } }));
    await writeHooks([`echo ran >> '${log}'`]);
    // A user hook always runs; its notice (an unknown exit code) shows in the terminal, controls visible.
    await mkdir(path.join(home, ".kosong"), { recursive: true });
    await writeFile(path.join(home, ".kosong", "config.toml"), `[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "printf 'lint \\\\033[31mfailed' >&2; exit 7"\n`);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const start = () => {
      const terminal = KosongTerminal.start(["--model", "test-model", "--sandbox", "off"], { cwd, env, width: 160 });
      terminals.push(terminal);
      return terminal;
    };
    const prompt = async (terminal: KosongTerminal, text: string) => {
      server.enqueue({ message: say(`answer to ${text}`), usage });
      terminal.line(text);
      await terminal.waitFor(new RegExp(`answer to ${text}[\\s\\S]*›\\s*$`), { from: `› ${text}` });
    };
    const ranCount = async () => (existsSync(log) ? (await readFile(log, "utf8")).trim().split("\n").length : 0);

    // No: the hook does not run, and the next start asks again.
    let terminal = start();
    let screen = await terminal.waitFor(question);
    expect(screen).toContain("This workspace defines 1 hook command that kosong would run on your machine:");
    expect(screen).toContain(`echo ran >> '${log}'`);
    terminal.line("n");
    await terminal.waitFor(ready);
    await prompt(terminal, "first");
    expect(await ranCount()).toBe(0);
    expect(terminal.after("› first")).toMatch(/! UserPromptSubmit hook `printf .*` exited with code 7; going on: lint ␛\[31mfailed/);
    terminal.keys("C-d");

    // Yes: it runs, and the answer is remembered.
    terminal = start();
    await terminal.waitFor(question);
    terminal.line("y");
    await terminal.waitFor(ready);
    await prompt(terminal, "second");
    expect(await ranCount()).toBe(1);
    terminal.keys("C-d");

    terminal = start();
    screen = await terminal.waitFor(ready);
    expect(screen).not.toContain("Trust this workspace");
    await prompt(terminal, "third");
    expect(await ranCount()).toBe(2);
    terminal.keys("C-d");

    // Changed hooks: asked again, and nothing runs on no.
    await writeHooks([`echo ran >> '${log}'`, `echo again >> '${log}'`]);
    terminal = start();
    screen = await terminal.waitFor(question);
    expect(screen).toContain("2 hook commands");
    terminal.line("n");
    await terminal.waitFor(ready);
    await prompt(terminal, "fourth");
    expect(await ranCount()).toBe(2);
  });
});
