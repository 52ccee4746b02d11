/** A parent soul whose `Agent` tool runs a child soul (through `runSubagent`) on its own context. */
import path from "node:path";
import { defineTool, SimpleToolset, type CallableTool } from "@kosong/core";
import { ScriptedChatProvider, type ChatScript } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul, type SoulOptions } from "@kosong/soul";
import { runSubagent, subagentToolResult } from "@kosong/soul/subagent";
import { z } from "zod";
import { noWait } from "../soul/helpers.js";

export interface FamilyOptions {
  /** The parent's scripts. */
  parent: ChatScript[];
  /** Each child's scripts, by the `name` the parent's call gives. */
  children: Record<string, ChatScript[]>;
  /** The children's tools. */
  childTools?: CallableTool[];
  /** Where the children's conversations live: a folder (one JSONL file each) or memory. */
  childDir?: string;
  /** The parent's context (default: a fresh in-memory one). */
  context?: Context;
  parentTools?: CallableTool[];
  soul?: Partial<SoulOptions>;
}

/** A parent soul with an `Agent` tool `{name, prompt}`; the children's providers and contexts, by name. */
export async function family(options: FamilyOptions) {
  const providers = Object.fromEntries(Object.entries(options.children).map(([name, scripts]) => [name, new ScriptedChatProvider(scripts)]));
  const contexts: Record<string, Context> = {};
  const childToolset = new SimpleToolset(options.childTools ?? []);
  const agent = defineTool({
    name: "Agent",
    description: "Runs a child agent.",
    parameters: z.object({ name: z.string(), prompt: z.string() }),
    async execute({ name, prompt }, toolContext) {
      const context = (contexts[name] ??= new Context(options.childDir ? path.join(options.childDir, `${name}.jsonl`) : new MemoryContextLog()));
      const result = await runSubagent(toolContext, prompt, {
        agent: { name, systemPrompt: `You are ${name}.`, toolset: childToolset },
        provider: providers[name]!,
        context,
        agentId: `agent-${name}`,
        subagentType: "coder",
        config: { retry: noWait, maxContextSize: 100_000 },
      });
      return subagentToolResult(result);
    },
  });
  const context = options.context ?? new Context(new MemoryContextLog());
  await context.restore().catch(() => undefined);
  const provider = new ScriptedChatProvider(options.parent);
  const toolset = new SimpleToolset([agent, ...(options.parentTools ?? [])]);
  const soul = new Soul({ agent: { name: "parent", systemPrompt: "You are the parent.", toolset }, provider, context, config: { retry: noWait, maxContextSize: 100_000 }, ...options.soul });
  return { soul, provider, providers, contexts, context };
}
