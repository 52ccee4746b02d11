/**
 * Skills and custom commands in the interactive mode (in process, on an
 * emulated terminal): `/skills` lists them, `/help` and Tab show the custom
 * commands, `/<command>` runs one. What the model reads of them, and
 * hostile skill files: skills-commands.e2e.test.ts.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { skillsSuite } from "../e2e/skills-workspace.js";
import { say, usage, useFakeModel } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { KosongTerminal } from "./kosong-terminal.js";

const fake = useFakeModel();
const tempDir = useTempDirs();

const { setup, sent, text } = skillsSuite(fake, tempDir);

describe("skills and custom commands (in process)", { timeout: 90_000 }, () => {
  it("in the terminal: /skills lists them, /help and Tab show the custom commands, /<command> runs one", async () => {
    const { home, cwd } = await setup();
    await mkdir(path.join(cwd, ".claude/commands"), { recursive: true });
    await writeFile(path.join(cwd, ".claude/commands/fix-issue.md"), "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue $1.\n");
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, height: 80, width: 160 });
    try {
      await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
      terminal.line("/skills");
      const listed = await terminal.waitFor(/\/haiku {2}Answer in a haiku/, { from: "› /skills" });
      expect(listed).toMatch(/\/release {2}Cut a release of the package {2}\.kosong\/skills\/release/);
      expect(listed).toMatch(/\/pdf {2}Fill in PDF forms {2}\.claude\/skills\/pdf/);
      expect(listed).toMatch(/\/lint {2}Lint the code/);
      terminal.line("/help");
      await terminal.waitFor(/Custom commands:\n\s+\/fix-issue <issue>\s+Fix an issue \(\.claude\/commands\/fix-issue\.md\)/, { from: "› /help" });
      terminal.type("/fix-i");
      terminal.keys("Tab");
      await terminal.waitFor(/› \/fix-issue $/m);
      fake.server.enqueue({ message: say("On it."), usage });
      terminal.line("42");
      await terminal.waitFor(/On it\./, { from: "› /fix-issue 42" });
      expect(text(sent(0).at(-1))).toBe("Fix issue 42.");
    } finally {
      await terminal.close();
    }
  });
});
