/**
 * A child agent's block in an emulated terminal (the turn renderer as the
 * interactive mode runs it, spinner on): while the child runs, one live
 * line with its kind, status, steps, tool calls, cost and latest step;
 * when it ends, collapsed to a header line and its latest step, its whole
 * steps and answer handed on for Ctrl-O; expanded (Ctrl-O while it runs),
 * its steps written under the call as they finish.
 */
import type { TokenUsage } from "@kosong/core";
import type { SoulEvent } from "@kosong/soul";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { TerminalInput } from "../src/modes/interactive/terminal-input.js";
import { TurnRenderer } from "../src/render/turn-renderer.js";
import { keys, VirtualTerminal } from "./virtual-terminal.js";

const usage: TokenUsage = { input_other: 1000, output: 100, input_cache_read: 0, input_cache_creation: 0 };

function setup() {
  const vt = new VirtualTerminal(120, 20);
  const kept: { label: string; output: string }[] = [];
  // A terminal's output side turns each newline into CR LF (the tty's onlcr), which the emulator does not.
  const tty = { isTTY: true, columns: 120, rows: 20, write: (text: string) => vt.screen.write(text.replace(/\r?\n/g, "\r\n")) };
  const renderer = new TurnRenderer({
    out: tty as unknown as NodeJS.WritableStream,
    style: pc.createColors(false),
    columns: 120,
    rows: 20,
    showThinking: () => false,
    spinner: true,
    askApproval: async () => ({ kind: "approve" }),
    respond: () => undefined,
    contextTokens: () => 0,
    onToolOutput: (label, output) => kept.push({ label, output }),
    // $0.001 per 1,000 input tokens of the child, whatever its model.
    childCost: (agentId, u) => (agentId === "agent-0000000a" ? u.input_other / 1_000_000 : null),
  });
  return { vt, renderer, kept };
}

const child = (event: SoulEvent): SoulEvent => ({ type: "SubagentEvent", payload: { parent_tool_call_id: "a1", agent_id: "agent-0000000a", subagent_type: "explore", event } });
const agentCall: SoulEvent = { type: "ToolCall", payload: { type: "function", id: "a1", function: { name: "Agent", arguments: JSON.stringify({ description: "find the port", prompt: "p", subagent_type: "explore" }) }, parsed_arguments: null } };
const read = (id: string, file: string): SoulEvent[] => [
  child({ type: "ToolCall", payload: { type: "function", id, function: { name: "ReadFile", arguments: JSON.stringify({ path: file }) }, parsed_arguments: null } }),
  child({ type: "ToolResult", payload: { tool_call_id: id, return_value: { is_error: false, output: "x", message: "", display: [{ type: "brief", text: `${file} (1 line)` }] } } }),
];
const status = child({ type: "StatusUpdate", payload: { context_usage: 0.1, context_tokens: 1000, max_context_tokens: 10_000, token_usage: usage, message_id: null } });
const firstSteps: SoulEvent[] = [agentCall, child({ type: "StepBegin", payload: { n: 1 } }), ...read("r1", "app.toml"), status, child({ type: "StepBegin", payload: { n: 2 } }), ...read("r2", "main.ts"), status];
const agentResult: SoulEvent = {
  type: "ToolResult",
  payload: { tool_call_id: "a1", return_value: { is_error: false, output: "port 8080", message: "Agent agent-0000000a (explore) finished.", display: [{ type: "brief", text: "explore finished" }], extras: { agent_id: "agent-0000000a", stop_reason: "no_tool_calls" } } },
};

describe("a child agent's block", () => {
  it("runs as one live line, then collapses to its header and latest step; Ctrl-O's output has every step and the answer", async () => {
    const { vt, renderer, kept } = setup();
    for (const event of firstSteps) await renderer.render(event);
    const live = (await vt.visible()).filter((row) => row.trim());
    // Nothing but the live line while it runs: no line per step.
    expect(live).toHaveLength(1);
    expect(live[0]).toMatch(/running Agent\(find the port\) · explore running · 2 steps · 2 tool calls · \$0\.0020 · ✓ ReadFile\(main\.ts\)/);

    await renderer.render(agentResult);
    await renderer.finish();
    expect((await vt.all()).filter((row) => row.trim())).toEqual([
      "✓ Agent(find the port) · explore done · 2 steps · 2 tool calls · $0.0020",
      "  └ ✓ ReadFile(main.ts) → main.ts (1 line) (Ctrl-O shows all 2)",
    ]);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.label).toBe("Agent(find the port)");
    expect(kept[0]!.output.split("\n")).toEqual([
      "agent-0000000a · explore done · 2 steps · 2 tool calls · $0.0020",
      "1. ✓ ReadFile(app.toml) → app.toml (1 line)",
      "2. ✓ ReadFile(main.ts) → main.ts (1 line)",
      "answer:",
      "port 8080",
    ]);
  });

  it("expanded while it runs (Ctrl-O), shows the steps so far and each next one under the call; a failed child says failed and why", async () => {
    const { vt, renderer } = setup();
    for (const event of firstSteps.slice(0, 5)) await renderer.render(event);
    expect(renderer.toggleChildren()).toBe(true);
    for (const event of firstSteps.slice(5)) await renderer.render(event);
    await renderer.render({
      type: "ToolResult",
      payload: { tool_call_id: "a1", return_value: { is_error: true, output: "", message: "Agent agent-0000000a (explore) failed: 500 upstream", display: [{ type: "brief", text: "explore error" }], extras: { stop_reason: "error" } } },
    });
    await renderer.finish();
    expect((await vt.all()).filter((row) => row.trim())).toEqual([
      "▾ Agent(find the port) · explore running · 1 step · 1 tool call · $0.0010 · ✓ ReadFile(app.toml)",
      "  │ explore: ✓ ReadFile(app.toml) → app.toml (1 line)",
      "  │ explore: ✓ ReadFile(main.ts) → main.ts (1 line)",
      "✗ Agent(find the port) · explore failed · 2 steps · 2 tool calls · $0.0020",
      "  │ Agent agent-0000000a (explore) failed: 500 upstream",
    ]);
  });

  it("Ctrl-O while a turn runs is handed on (to expand or collapse), not typed", () => {
    const vt = new VirtualTerminal(40, 10);
    const input = new TerminalInput(vt.keyboard as unknown as NodeJS.ReadStream, vt.screen, null);
    const events: string[] = [];
    const stop = input.watchTurn({ interrupt: () => undefined, escape: () => undefined, expand: () => events.push("expand"), line: () => undefined, typing: (text) => events.push(`typing:${text}`) });
    vt.send("ab", keys.ctrlO, keys.ctrlO);
    stop();
    expect(events).toEqual(["typing:ab", "expand", "typing:ab", "expand", "typing:ab"]);
  });

  it("a child that answered without tool calls collapses to its header and says so", async () => {
    const { vt, renderer } = setup();
    for (const event of [agentCall, child({ type: "StepBegin", payload: { n: 1 } }), agentResult]) await renderer.render(event);
    await renderer.finish();
    expect((await vt.all()).filter((row) => row.trim())).toEqual(["✓ Agent(find the port) · explore done · 1 step · 0 tool calls", "  └ no tool calls (Ctrl-O shows its answer)"]);
  });
});
