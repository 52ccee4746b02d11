/**
 * The children of a session and the `Agent` tool that starts them, in
 * kimi-cli's shape: `description`, `prompt`, `subagent_type`, optional
 * `model`, `resume` (an agent id: continue that child's conversation) and
 * `run_in_background`. Each child runs through `@kosong/soul/subagent` on
 * its own conversation (a `context.jsonl`, or in the parent's store: see `subagent-store.ts`), with the tools of its
 * kind, the parent's approvals and file journal; at most
 * {@link maxParallelChildren} run at once. A foreground child's final answer
 * is the call's result; a background child's answer reaches the parent as
 * input steered into the running turn, or (when none runs) as
 * {@link Subagents.takeNotices} for the next one.
 */
import { SimpleToolset, sumTokenUsage, toolError, toolOk, type CallableTool, type ChatProvider, type ToolContext, type ToolReturnValue, type Toolset } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import { Context, ToolRejectedError, type Soul } from "@kosong/soul";
import type { SubagentInput } from "@kosong/soul/hooks";
import { runSubagent, subagentToolResult, type SubagentResult } from "@kosong/soul/subagent";
import * as z from "zod";
import { priceOf, type ModelPrice } from "../pricing/model-prices.js";
import { usageCost } from "../pricing/usage-cost.js";
import type { AgentType } from "./agent-types.js";
import { Slots } from "./slots.js";
import { agentIdPattern, type SubagentRecord, type SubagentStore } from "./subagent-store.js";

/** Fires the SubagentStart / SubagentStop hooks of the session (see `SessionCommandHooks.subagent`). */
export type SubagentHooks = (event: "start" | "stop", input: SubagentInput) => Promise<void>;

/** Children that run at once at most; more wait for a slot. */
export const maxParallelChildren = 4;

/** What the children of a session are made of. */
export interface SubagentsOptions {
  store: SubagentStore;
  types: readonly AgentType[];
  /** The parent's tools (without `Agent`): a child gets those its kind names. */
  tools: readonly CallableTool[];
  /** The session's rules over a child's toolset (its permission rules: deny, allow), as over the parent's. */
  guard(toolset: Toolset): Toolset;
  /** The session's model now (`/model` changes it). */
  provider(): ChatProvider;
  /** The model of the fast kinds (`explore`): the compact model, else the session's. */
  fastProvider(): ChatProvider;
  /** Another model of the session's provider, by name. */
  providerFor(model: string): Promise<ChatProvider>;
  /** The parent soul now (for its approvals and to steer a background child's answer in). */
  soul(): Soul;
  /** The parent's conversation (its checkpoint when a call runs). */
  context: Context;
  maxContextSize: number;
  /** Price overrides from the config file. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** Fired around each child's run: "start" with its prompt once it has a slot, "stop" with its final answer ("" when it ended without one). */
  hooks: SubagentHooks;
}

/** The parameters of `Agent` (listed in `tools/built-in-tool-parameters.ts`). */
export const agentToolParameters = z.lazy(() => z.object({
  description: z.string().min(1).max(200).describe("A short (3-5 words) description of the task."),
  prompt: z.string().min(1).describe("The task for the agent: everything it needs to know, as it sees nothing of this conversation."),
  subagent_type: z.string().default("coder").describe("The kind of agent (see the list in this tool's description)."),
  model: z.string().regex(/^[\w.:/@-]{1,100}$/).optional().describe("A model to run it on instead of the session's (rarely needed)."),
  resume: z.string().optional().describe("The id of an agent that ran before (agent-xxxxxxxx): continue its conversation with this prompt."),
  run_in_background: z.boolean().default(false).describe("Start it and return at once; its answer arrives as a message when it finishes."),
}));

/** The children of one session. */
export class Subagents {
  readonly #options: SubagentsOptions;
  readonly #slots = new Slots(maxParallelChildren);
  readonly #running = new Map<string, { record: SubagentRecord; done: Promise<void>; abort: AbortController | null }>();
  #notices: string[] = [];
  /**
   * Set by a host that answers approval requests made while no turn runs
   * (it subscribes to the soul's approval and answers the requests it sees
   * while the soul is not running): a background child's request between
   * turns is then asked through the soul's approval. Unset, such a request
   * is refused (nobody would answer it).
   */
  answersBetweenTurns = false;
  /**
   * Set by a host that tells the user when a background child finishes
   * while no turn runs (its answer waits for the next turn): called with the
   * child's record and whether it failed. Strings in the record come from
   * the model: show them with their controls made visible.
   */
  onFinishedBetweenTurns: ((record: SubagentRecord, failed: boolean) => void) | null = null;

  constructor(options: SubagentsOptions) {
    this.#options = options;
  }

  /** The store of the children's records and conversations. */
  get store(): SubagentStore {
    return this.#options.store;
  }

  /** The kinds a call may name. */
  get types(): readonly AgentType[] {
    return this.#options.types;
  }

  /** The ids of the children running now. */
  get running(): ReadonlySet<string> {
    return new Set(this.#running.keys());
  }

  /** The model of child `id` while it runs, null otherwise. */
  modelOf(id: string): string | null {
    return this.#running.get(id)?.record.model || null;
  }

  /** Answers of background children that finished while no turn ran (each once), for the next turn's input. */
  takeNotices(): string[] {
    return this.#notices.splice(0);
  }

  /** Waits until no background child runs. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Aborts the background children (on exit); their ends are not announced ({@link onFinishedBetweenTurns}). */
  abortAll(): void {
    this.onFinishedBetweenTurns = null;
    for (const run of this.#running.values()) run.abort?.abort();
  }

  /** The `Agent` tool. */
  tool(): CallableTool {
    const kinds = this.#options.types.map((t) => `- ${t.name}: ${t.description}`).join("\n");
    return defineBuiltInTool({
      name: "Agent",
      description:
        "Starts a subagent on a task of its own, with its own conversation: it sees only your prompt, works with the tools of its kind, and its final answer is this call's result. " +
        "Calls made together run in parallel. The result names the agent's id: pass it as `resume` to continue that agent. Kinds:\n" +
        kinds,
      parameters: agentToolParameters,
      execute: (args, context) => this.#call(args, context),
    });
  }

  async #call(args: z.infer<typeof agentToolParameters>, context: ToolContext): Promise<ToolReturnValue> {
    const { store } = this.#options;
    let record: SubagentRecord;
    if (args.resume !== undefined) {
      const found = agentIdPattern.test(args.resume) ? await store.get(args.resume) : null;
      if (found === null) return toolError({ message: `No agent ${JSON.stringify(args.resume.slice(0, 40))} in this session: resume takes an id a previous Agent result named.` });
      if (this.#running.has(found.id)) return toolError({ message: `Agent ${found.id} is still running; wait for its answer.` });
      if (found.status === "detached") return toolError({ message: `Agent ${found.id} was detached when the conversation was reverted past it; start a new agent.` });
      record = { ...found, description: args.description, parent_tool_call_id: context.toolCallId, parent_checkpoint: this.#options.context.nCheckpoints, status: "running", background: args.run_in_background };
    } else {
      if (!this.#options.types.some((t) => t.name === args.subagent_type)) {
        return toolError({ message: `Unknown subagent_type ${JSON.stringify(args.subagent_type.slice(0, 40))}; one of: ${this.#options.types.map((t) => t.name).join(", ")}.` });
      }
      record = await store.create({
        id: store.newId(),
        subagent_type: args.subagent_type,
        description: args.description,
        parent_session: context.session?.id ?? "",
        parent_tool_call_id: context.toolCallId,
        parent_checkpoint: this.#options.context.nCheckpoints,
        model: "",
        background: args.run_in_background,
        status: "running",
      });
    }
    const type = this.#options.types.find((t) => t.name === record.subagent_type);
    if (type === undefined) return toolError({ message: `Agent ${record.id}'s kind ${JSON.stringify(record.subagent_type)} is no longer defined (its agent file is gone); start a new agent.` });
    let provider: ChatProvider;
    try {
      const model = args.model ?? type.model;
      provider = model !== null ? await this.#options.providerFor(model) : type.fast ? this.#options.fastProvider() : this.#options.provider();
    } catch (error) {
      await store.save({ ...record, status: "failed", last_result: String(error) });
      return toolError({ message: `Agent ${record.id}: the model could not be used: ${error instanceof Error ? error.message : String(error)}` });
    }
    record = { ...record, model: provider.modelName };
    await store.save(record);
    if (!args.run_in_background) return this.#track(record, null, () => this.#run(record, type, provider, args.prompt, context));
    const abort = new AbortController();
    void this.#track(record, abort, () => this.#run(record, type, provider, args.prompt, this.#detached(context, abort.signal, record)), (value) => this.#deliver(record, value));
    return toolOk({
      output: `Agent ${record.id} (${record.subagent_type}) started in the background. Its answer arrives as a message when it finishes; go on meanwhile.`,
      brief: `${record.subagent_type} in the background`,
      extras: { agent_id: record.id, subagent_type: record.subagent_type, background: true },
    });
  }

  /** Runs `work` as child `record`, known as running until it ends and `then` has taken its result. */
  #track(record: SubagentRecord, abort: AbortController | null, work: () => Promise<ToolReturnValue>, then?: (value: ToolReturnValue) => void): Promise<ToolReturnValue> {
    const running = work();
    const done = running.then(then, () => undefined).finally(() => this.#running.delete(record.id));
    this.#running.set(record.id, { record, abort, done: done.then(() => undefined) });
    return running;
  }

  async #run(record: SubagentRecord, type: AgentType, provider: ChatProvider, prompt: string, context: ToolContext): Promise<ToolReturnValue> {
    const { store } = this.#options;
    let child: Context;
    try {
      child = await store.openContext(record.id);
    } catch (error) {
      // Its store refused (a lost connection, a lock another kosong holds): an error result, the parent goes on.
      await store.save({ ...record, status: "failed", last_result: error instanceof Error ? error.message : String(error) });
      return toolError({ message: `Agent ${record.id} (${record.subagent_type}): its conversation could not be opened: ${error instanceof Error ? error.message : String(error)}` });
    }
    const agent = { name: record.subagent_type, systemPrompt: type.systemPrompt, toolset: this.#options.guard(new SimpleToolset(this.#toolsOf(type))) };
    const config = { maxContextSize: this.#options.maxContextSize };
    let result: SubagentResult;
    try {
      result = await this.#slots.run(async () => {
        // A resumed child goes on with its conversation (a cut tool call of it answered as interrupted).
        await child.restore();
        await this.#options.hooks("start", { agentName: record.subagent_type, text: prompt });
        // runSubagent rejects only when not called from a tool: a child that failed or was aborted still ends with a stop.
        const ran = await runSubagent(context, prompt, { agent, provider, context: child, agentId: record.id, subagentType: record.subagent_type, config });
        await this.#options.hooks("stop", { agentName: record.subagent_type, text: ran.text });
        return ran;
      }, context.signal);
    } catch (error) {
      await store.save({ ...record, status: context.signal.aborted ? "aborted" : "failed", last_result: error instanceof Error ? error.message : String(error) });
      return toolError({ message: `Agent ${record.id} (${record.subagent_type}) did not run: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      await child.close();
    }
    record.turns = [...(record.turns ?? []), { parent_tool_call_id: record.parent_tool_call_id, parent_checkpoint: record.parent_checkpoint, label: result.link }];
    const value = subagentToolResult(result);
    const price = priceOf(provider.modelName, this.#options.prices);
    const stop = result.turn.stopReason;
    await store.save({
      ...record,
      status: stop === "no_tool_calls" ? "finished" : stop === "aborted" ? "aborted" : "failed",
      usage: sumTokenUsage(record.usage, result.turn.usage),
      cost: price === null ? record.cost : (record.cost ?? 0) + usageCost(result.turn.usage, price),
      last_result: (value.is_error ? value.message : result.text).slice(0, 2000),
    });
    return { ...value, message: `${value.message} Resume it with resume: "${record.id}".` };
  }

  #toolsOf(type: AgentType): CallableTool[] {
    return this.#options.tools.filter((tool) => tool.name !== "Agent" && (type.tools === "all" || type.tools.includes(tool.name)));
  }

  /**
   * The tool context a background child runs under once its call has
   * returned: its own abort, no parent call to nest events under, approvals
   * asked through the parent soul's approval, the sender naming the child
   * (`coder/WriteFile (background agent agent-1234abcd)`): the running
   * turn's host answers, or between turns a host that
   * {@link answersBetweenTurns}.
   */
  #detached(context: ToolContext, signal: AbortSignal, record: SubagentRecord): ToolContext {
    return {
      ...context,
      signal,
      turn: {
        emitSubagentEvent: () => undefined,
        addUsage: () => undefined,
        requestApproval: (request, s) => {
          const soul = this.#options.soul();
          const named = { ...request, sender: `${request.sender} (background agent ${record.id})` };
          if (soul.running || this.answersBetweenTurns || soul.approval.yolo || soul.approval.sessionApproved.has(request.action)) return soul.approval.request(named, s);
          const feedback = "A background agent cannot ask for approval while no turn runs here; do this in the foreground (or the user turns on yolo).";
          return Promise.resolve({ approved: false, feedback, rejection: new ToolRejectedError(feedback) });
        },
      },
    };
  }

  /** A background child's answer: steered into the running turn, else kept for the next. */
  #deliver(record: SubagentRecord, value: ToolReturnValue): void {
    const text = typeof value.output === "string" ? value.output : value.output.map((p) => (p.type === "text" ? p.text : "")).join("");
    const notice = `<system>Background agent ${record.id} (${record.subagent_type}, "${record.description}") ${value.is_error ? `failed: ${value.message}` : "finished"}.</system>\n${text}`;
    if (this.#options.soul().steer(notice)) return;
    this.#notices.push(notice);
    this.onFinishedBetweenTurns?.(record, value.is_error);
  }
}
