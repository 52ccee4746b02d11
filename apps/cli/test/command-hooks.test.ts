/**
 * The command hooks as the host fires them, with real commands: the
 * subagent events (fired by whoever runs subagents) reach a hook whose
 * matcher names the agent, with kimi-cli's fields on stdin; a hook for
 * another agent does not run.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandHooks } from "../src/hooks/command-hooks.js";
import type { HookDefinition } from "../src/hooks/hook-definition.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("command hooks fired by the host", () => {
  it("SubagentStart and SubagentStop run the hooks matching the agent's name, with the event on stdin", async () => {
    const dir = await tempDir();
    const hook = (event: HookDefinition["event"], matcher: string, file: string): HookDefinition => ({
      event,
      command: `cat > '${path.join(dir, file)}'`,
      matcher,
      matchWhole: false,
      timeoutSeconds: 10,
      scope: "user",
      source: "config.toml",
    });
    const { host, soul } = commandHooks(
      [hook("SubagentStart", "^coder$", "start.json"), hook("SubagentStop", "coder", "stop.json"), hook("SubagentStart", "reviewer", "other.json")],
      { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox: null },
      { sessionId: "s1", transcriptPath: path.join(dir, "context.jsonl"), cwd: dir },
    );
    expect(Object.keys(soul)).toEqual([]);
    await host.subagentStart!({ agentName: "coder", text: "write the parser" });
    await host.subagentStop!({ agentName: "coder", text: "parser written" });
    expect(JSON.parse(await readFile(path.join(dir, "start.json"), "utf8"))).toMatchObject({ hook_event_name: "SubagentStart", agent_name: "coder", prompt: "write the parser", session_id: "s1", cwd: dir });
    expect(JSON.parse(await readFile(path.join(dir, "stop.json"), "utf8"))).toMatchObject({ hook_event_name: "SubagentStop", agent_name: "coder", response: "parser written" });
    expect(existsSync(path.join(dir, "other.json"))).toBe(false);
  });
});
