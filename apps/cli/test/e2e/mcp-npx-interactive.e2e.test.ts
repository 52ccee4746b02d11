/**
 * The CLI README's MCP example (`files` and `everything` through `npx -y`)
 * in a real terminal (tmux), against a stand-in for the npm registry on
 * 127.0.0.1 that serves both packages (each runs the real reference server
 * installed with the tests) and holds their downloads back: the prompt is
 * drawn at once with a line per server still starting, never a blank
 * screen; once the downloads go, both servers report ready and a prompt
 * reaches a server's tool.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Message } from "@kosong/core";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { type LocalNpmRegistry, startLocalNpmRegistry } from "./local-npm-registry.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });
const require = createRequire(import.meta.url);
const entry = (pkg: string) => pathToFileURL(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js")).href;
/** A package whose command runs the installed reference server `pkg` (with `args` first, as the real package's would take them). */
const wrapper = (pkg: string, args: string[]) => ({ name: pkg, bin: `process.argv.splice(2, 0, ...${JSON.stringify(args)});\nawait import(${JSON.stringify(entry(pkg))});\n` });

let registry: LocalNpmRegistry | null = null;
afterEach(async () => {
  await registry?.close();
  registry = null;
});

describe("the README's MCP example with npx, in a real terminal (tmux)", { timeout: 120_000 }, () => {
  it("draws the prompt at once with a line per server starting, then both are ready and their tools answer", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await mkdir(path.join(home, ".kosong"));
    await writeFile(path.join(cwd, "notes.txt"), "project notes");
    registry = await startLocalNpmRegistry(path.join(home, "registry"), [wrapper("@modelcontextprotocol/server-filesystem", []), wrapper("@modelcontextprotocol/server-everything", ["stdio"])], { hold: true });
    // The README's example, the HTTP server left out (it needs a real endpoint).
    const mcpServers = {
      files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
      everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { LOG_LEVEL: "warn" } },
    };
    await writeFile(path.join(home, ".kosong", "config.json"), JSON.stringify({ mcpServers }));
    const env = cleanEnv(home, {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `${server.url}/v1`,
      npm_config_registry: registry.url,
      npm_config_cache: path.join(home, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
    });
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model", "--yolo"], { cwd, env, width: 120, height: 30 });
    terminals.push(terminal);

    // The downloads are held: the prompt is there all the same, with both servers shown starting.
    const early = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(early).toContain("MCP server `files` starting (npx)");
    expect(early).toContain("MCP server `everything` starting (npx)");
    expect(early).not.toContain("ready:");

    registry.release();
    await terminal.waitFor(/MCP server `files` ready: \d+ tools[\s\S]*›/);
    await terminal.waitFor(/MCP server `everything` ready: \d+ tools[\s\S]*›/);

    const echo: Message = { role: "assistant", content: [], tool_calls: [{ type: "function", id: "c1", function: { name: "mcp__everything__echo", arguments: JSON.stringify({ message: "through npx" }) } }] };
    server.enqueue({ message: echo }, { message: { role: "assistant", content: [{ type: "text", text: "Echoed it." }] } });
    terminal.line("echo through npx");
    await terminal.waitFor(/Echoed it\./, { from: "› echo through npx" });
    const offered = (server.requests.at(-1)!.body!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__files__read_text_file", "mcp__everything__echo"]));
  });
});
