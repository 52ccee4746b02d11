/**
 * What the loop functions work with: the agent, its provider and context,
 * the settings, and the hooks the stateful `Soul` provides. The loop is
 * plain functions over this (see run-turn.ts), so the `Soul` class stays a
 * thin owner of state.
 */
import type { ChatProvider, Toolset } from "@kosong/core";
import type { Compaction, FileReader } from "../compaction/index.js";
import type { Context } from "../context/index.js";
import type { Approval } from "../approval/approval.js";
import type { SoulConfig } from "./config.js";
import type { SoulEvent, SoulEventOf, UserInput } from "../events/events.js";
import type { SoulSession } from "../session/session.js";
import type { SoulHooks } from "../hooks/soul-hooks.js";

/** The agent a soul runs. */
export interface AgentSpec {
  /** The agent's name (for status lines and logs). */
  name: string;
  /** The system prompt; a prompt already stored in the context wins (as in kimi-cli). */
  systemPrompt: string;
  /** The tools the model may call. */
  toolset: Toolset;
  /**
   * The part of `systemPrompt` the host built from project files
   * (`AGENTS.md`, ...), for the context breakdown only (`soul.status`).
   */
  projectContext?: string;
}

/** Receives the events of the running operation. Must not throw (the loop does not guard it). */
export type Emit = (event: SoulEvent) => void;

/** Everything a turn needs. */
export interface SoulRuntime {
  readonly agent: AgentSpec;
  readonly provider: ChatProvider;
  readonly context: Context;
  readonly config: SoulConfig;
  /** The compaction strategy, null when the soul has none (then overflow is an error). */
  readonly compaction: Compaction | null;
  /** The model compaction strategies may summarise with, null for none. */
  readonly compactionProvider: ChatProvider | null;
  /** Reads the session's files back for strategies that recover them. */
  readonly readFile: FileReader;
  readonly approval: Approval;
  readonly session: SoulSession;
  /** The host's hooks (an empty object for none). */
  readonly hooks: SoulHooks;
  /** True when the toolset has `SendDMail`: checkpoints then carry their visible CHECKPOINT message. */
  readonly dmailEnabled: boolean;
  /** True when the toolset has `Recall`: compactions then leave recall pointers, and tool-result aging runs. */
  readonly recallEnabled: boolean;
  /**
   * Takes the input steered in since the last call (oldest first), leaving
   * none. Called after each step. Contract: never throws.
   */
  takeSteered(): UserInput[];
  /** Takes the warnings not given yet (each is given once per soul). Contract: never throws. */
  takeWarnings(): Array<SoulEventOf<"Warning">["payload"]>;
  /**
   * Ends steering for this turn: `soul.steer()` returns false from now on.
   * Called in the same synchronous block as the `takeSteered()` that found
   * nothing, so no accepted input can be left behind. Contract: never throws.
   */
  closeSteering(): void;
}
