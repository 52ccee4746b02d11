/**
 * Issue 33's scripted turn, for the side-by-side benches: the model first
 * calls a shell tool, then streams a ~2,000-token answer in 2,000 small
 * deltas (one SSE event each, written one by one as a real server sends
 * them). Each agent gets the call in its own tool's shape (kosong's `Shell`
 * `{ command }`, Codex's `exec_command` `{ cmd }`), and {@link assertToolTurn}
 * fails the run unless the second request carried the command's real output
 * and the agent printed the whole answer: figures of a turn that went
 * another way (a refused call, a sandbox error) are never reported.
 */
import type { FakeProviderRequest, FakeResponse } from "@kosong/core/testing";

/** The agents whose shell tool the turn calls. */
export type ShellDialect = "kosong" | "codex";

const callId = "call_bench_tool_1";

/** The shell's expansion makes the marker, so it is in the tool's output only if a shell really ran the command. */
const command = "echo kosong-bench-$((6*7))";
const marker = "kosong-bench-42";

/** The answer's deltas: about one token each, a line break every 15 words. */
const deltas: string[] = Array.from({ length: 2_000 }, (_, i) => (i === 0 ? "Answer" : i % 15 === 0 ? " done.\n" : " word"));

/** The answer as the agent should print it. */
export const toolTurnAnswer = deltas.join("");

/** The tool call in `dialect`'s shape: the name and arguments of the agent's own shell tool. */
function shellCall(dialect: ShellDialect): { name: string; arguments: string } {
  return dialect === "kosong" ? { name: "Shell", arguments: JSON.stringify({ command }) } : { name: "exec_command", arguments: JSON.stringify({ cmd: command }) };
}

/** Written frame by frame: one frame held back until an already settled promise, so the server takes its per-frame path with no delay. */
const frameByFrame = { holdAfter: 1, release: Promise.resolve() };

/** The two responses of the turn, to enqueue in order. */
export function toolTurnResponses(dialect: ShellDialect): FakeResponse[] {
  return [
    { message: { role: "assistant", content: [], tool_calls: [{ type: "function", id: callId, function: shellCall(dialect) }] }, ...frameByFrame },
    { message: { role: "assistant", content: deltas.map((text) => ({ type: "text", text })) }, ...frameByFrame },
  ];
}

/** The tool result the second request carries for the call (Chat Completions `tool` message, Responses `function_call_output`), or null. */
function toolResult(request: FakeProviderRequest | undefined): string | null {
  const items = request?.body?.messages ?? request?.body?.input;
  if (!Array.isArray(items)) return null;
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    if (item.role === "tool" && item.tool_call_id === callId) return JSON.stringify(item.content ?? null);
    if (item.type === "function_call_output" && item.call_id === callId) return JSON.stringify(item.output ?? null);
  }
  return null;
}

/** Throws unless the agent made exactly the turn's two requests, the second carrying the command's output, and printed the whole answer. */
export function assertToolTurn(agent: string, requests: readonly FakeProviderRequest[], stdout: string): void {
  const result = toolResult(requests[1]);
  if (requests.length !== 2 || result === null || !result.includes(marker)) {
    throw new Error(`${agent} did not run the tool call: ${requests.length} request(s), the tool result ${result === null ? "missing" : JSON.stringify(result.slice(0, 300))}`);
  }
  if (stdout.trim() !== toolTurnAnswer.trim()) throw new Error(`${agent} printed another answer: ${JSON.stringify(stdout.slice(0, 300))}`);
}
