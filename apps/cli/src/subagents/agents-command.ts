/**
 * `/agents`: the session's children (running and finished: kind, status,
 * task, cost), one child's transcript (`/agents <id>`), and bringing back
 * the conversation of a child a revert detached (`/agents restore <id>`).
 * Everything shown came from a model or a workspace file: its control
 * characters are made visible.
 */
import { extractText } from "@kosong/core";
import { formatCost } from "../pricing/usage-cost.js";
import { oneLine, visibleControls } from "../render/visible-controls.js";
import type { Style } from "../render/terminal-style.js";
import type { Subagents } from "./subagents.js";

/** What `/agents` writes through. */
export interface AgentsCommandOutput {
  print(line: string): void;
  style: Style;
}

/** Runs `/agents [<id> | restore <id>]`. */
export async function agentsCommand(subagents: Subagents, args: string, out: AgentsCommandOutput): Promise<void> {
  const [first, second] = args.split(/\s+/).filter(Boolean);
  if (first === "restore" && second) return restoreDetached(subagents, second, out);
  if (first) return printTranscript(subagents, first, out);
  const records = await subagents.store.list();
  if (records.length === 0) return out.print("No agents in this session yet (the model starts them with the Agent tool).");
  const running = subagents.running;
  for (const r of records) {
    const status = running.has(r.id) ? out.style.yellow("running") : r.status;
    const cost = r.cost === null ? "" : ` · ${formatCost(r.cost)}`;
    const tokens = r.usage.input_other + r.usage.input_cache_read + r.usage.input_cache_creation + r.usage.output;
    out.print(`${r.id}  ${visibleControls(r.subagent_type, { oneLine: true })}  ${status}${r.background ? " (background)" : ""}  ${oneLine(r.description, 50)}${out.style.dim(` · ${tokens} tokens${cost}`)}`);
  }
  out.print(out.style.dim("/agents <id> shows one's transcript."));
}

async function printTranscript(subagents: Subagents, id: string, out: AgentsCommandOutput): Promise<void> {
  const record = await subagents.store.get(id);
  if (record === null) return out.print(`No agent ${oneLine(id, 40)} in this session (see /agents).`);
  // Read as written so far, without the child's lock: a running child (here or in another kosong) is shown too, and nothing is changed.
  const records = await subagents.store.readRecords(record.id);
  const running = subagents.running.has(record.id);
  out.print(`${record.id} · ${visibleControls(record.subagent_type, { oneLine: true })} · ${running ? out.style.yellow("running") : record.status} · model ${visibleControls(record.model, { oneLine: true })}`);
  for (const entry of records) {
    if (entry.kind !== "message") continue;
    const { message } = entry;
    const calls = message.tool_calls?.map((c) => `${c.function.name}(${oneLine(c.function.arguments ?? "", 60)})`).join(", ");
    const body = visibleControls(extractText(message, "\n")).trim();
    out.print(`${out.style.bold(message.role)}${calls ? out.style.dim(` → ${calls}`) : ""}${body ? `\n${body}` : ""}`);
  }
  if (running) out.print(out.style.dim(`Still running: this is its conversation so far (/agents ${record.id} again shows more).`));
  if (record.status === "detached") out.print(out.style.dim(`Detached by a revert; /agents restore ${record.id} brings its conversation back.`));
}

async function restoreDetached(subagents: Subagents, id: string, out: AgentsCommandOutput): Promise<void> {
  const record = await subagents.store.get(id);
  if (record?.detached_rotation === undefined) return out.print(`No detached agent ${oneLine(id, 40)} (see /agents).`);
  const context = await subagents.store.openContext(record.id);
  try {
    await context.restoreRotation(record.detached_rotation);
    const { detached_rotation: _rotation, detached_turns: taken = [], ...rest } = record;
    await subagents.store.save({ ...rest, status: record.status === "detached" ? "finished" : record.status, turns: [...record.turns, ...taken] });
    out.print(`Agent ${record.id}'s conversation is back (${context.history.length} messages); it can be resumed again.`);
  } finally {
    await context.close();
  }
}
