/**
 * "Always for this project" at an approval prompt, on an emulated terminal (in process):
 * the answer `p` saves the approval as an allow rule in the project's
 * `.kosong/settings.json`, and a later run in the trusted workspace (print
 * mode, which refuses whatever would ask) runs the same command unasked.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, runKosong } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite({ binary: true });
const shell = (id: string, command: string): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name: "Shell", arguments: JSON.stringify({ command }) } }] });
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("saving an approval for the project (in process)", { timeout: 90_000 }, () => {
  it("[p] writes an allow rule to .kosong/settings.json that a later run in the trusted workspace uses", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
    const terminal = KosongTerminal.start(["--model", "test-model", "--sandbox", "off", "--trust-workspace"], { cwd, env: cleanEnv(home, env), width: 160, height: 30 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    server.enqueue({ message: shell("s1", "echo saved rule") }, { message: say("Ran it.") });
    terminal.line("run it");
    await terminal.waitFor(/\[p\] always for this project \(Shell\(echo saved rule\)\)[\s\S]*approve\? /);
    terminal.line("p");
    await terminal.waitFor(/Ran it\./, { from: "› run it" });
    const saved = JSON.parse(await readFile(path.join(cwd, ".kosong", "settings.json"), "utf8")) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual(["Shell(echo saved rule)"]);

    server.enqueue({ message: shell("s2", "echo saved rule") }, { message: say("Again.") });
    const later = await runKosong(["-p", "again", "--sandbox", "off", "--trust-workspace", "--output-format", "stream-json"], { cwd, home, env });
    expect(later.code, later.stderr).toBe(0);
    const result = later.stdout
      .trim()
      .split("\n")
      .map((line) => parseEvent(line))
      .find((event) => event.type === "ToolResult");
    expect(result?.type === "ToolResult" && result.payload.return_value.is_error).toBe(false);
    expect(JSON.stringify(result)).toContain("saved rule");
  });
});
