/**
 * The balanced retention strategy: what matters plus the recent messages,
 * within a token budget. Kode's version kept every "important" message
 * and the last five whatever they cost, matched "error" inside other words,
 * and cut tool pairs apart; this one stubs bulky old tool outputs first,
 * drops whole blocks in order of importance, refills what it over-dropped,
 * and leaves an index of the identifiers it gave up.
 */
import type { Message } from "@kosong/core";
import { type ConversationBlock, conversationBlocks } from "../conversation/index.js";
import { type Budget, type BudgetOptions, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { type FitAction, fitToBudget } from "./fit-to-budget.js";
import { messageIdentifiers } from "./identifier-index.js";
import { isErrorResult, isImportantMessage, isUserTyped } from "./message-importance.js";
import { recentBlockStart } from "./recent-blocks.js";

/** Options of {@link PreserveImportantCompaction}. */
export interface PreserveImportantCompactionOptions extends BudgetOptions {
  /** User and assistant messages at the end that are kept before anything but the task (default 5, as Kode). */
  keepRecent?: number;
  /** A tool output larger than this many tokens is bulky: it becomes a stub before messages are dropped (default 200). */
  bulkyToolOutputTokens?: number;
  /** The share of the budget held for an index of the identifiers in what was given up (default 0.15; 0 for none). */
  indexShare?: number;
}

/**
 * Fits the conversation into `maxTokens` giving things up in this order
 * (the recent part is the last `keepRecent` user and assistant messages with
 * their tool results; the task is the first and the latest message the user
 * typed):
 *
 * 1. bulky tool outputs (not errors) before the recent part become `[tool output elided: N tokens]`, oldest first,
 *    except outputs about a file that the recent part uses again;
 * 2. unimportant blocks before the recent part are dropped, oldest first;
 * 3. the bulky outputs spared in 1 become stubs, oldest first;
 * 4. important blocks before the recent part (see {@link isImportantMessage}; also a tool round with an error result), oldest first;
 * 5. bulky tool outputs of the recent part become stubs, oldest first;
 * 6. recent blocks but the last are dropped, oldest first;
 * 7. the task's messages, latest request first, then the first one;
 * 8. what is left is shrunk (every tool output stubbed, texts cut), oldest first, and dropped as a last resort.
 *
 * Each step runs only while the conversation is over budget; then whatever
 * was given up is put back, most useful first, while it fits. The notice of
 * what was removed carries an index of the paths, symbols and error lines
 * of the removed messages (`indexShare` of the budget). Needs no provider.
 */
export class PreserveImportantCompaction implements Compaction {
  readonly name = "preserve-important";
  readonly #budget: Budget;
  readonly #keepRecent: number;
  readonly #bulky: number;
  readonly #indexShare: number;

  constructor(options: PreserveImportantCompactionOptions) {
    this.#budget = budgetOf("PreserveImportantCompaction", options);
    this.#keepRecent = options.keepRecent ?? 5;
    this.#bulky = options.bulkyToolOutputTokens ?? 200;
    this.#indexShare = options.indexShare ?? 0.15;
    if (!(Number.isInteger(this.#keepRecent) && this.#keepRecent >= 0)) {
      throw new CompactionError(`PreserveImportantCompaction: keepRecent must be a non-negative integer, got ${this.#keepRecent}.`);
    }
    if (!(this.#indexShare >= 0 && this.#indexShare < 1)) {
      throw new CompactionError(`PreserveImportantCompaction: indexShare must be in [0, 1), got ${this.#indexShare}.`);
    }
  }

  async compact(history: readonly Message[], options: CompactionOptions = {}): Promise<CompactionResult> {
    await this.#budget.tokenizer.load?.();
    const budget = scaledBudget("PreserveImportantCompaction", this.#budget, history, options);
    if (budget.counter.count(history) <= budget.maxTokens) return { ...fitToBudget(history, [], budget), usage: null };
    const blocks = conversationBlocks(history).map((block, index) => ({ ...block, index }));
    const recent = recentBlockStart(blocks, Math.max(1, this.#keepRecent));
    const typed = blocks.filter((b) => isUserTyped(history[b.start]!));
    const task = new Set([typed[0], typed.at(-1)].filter((b) => b !== undefined));
    const important = (b: ConversationBlock): boolean =>
      isImportantMessage(history[b.start]!) || history.slice(b.start + 1, b.end).some(isErrorResult);
    const usedLater = pathsIn(history.slice(blocks[recent]?.start ?? history.length));
    const bulkyOutputs = (part: ReadonlyArray<ConversationBlock>): number[] =>
      part.flatMap((b) =>
        history.slice(b.start, b.end).flatMap((message, offset) =>
          message.role === "tool" && !isErrorResult(message) && budget.counter.message(message) > this.#bulky ? [b.start + offset] : [],
        ),
      );
    // A tool output sits in its assistant message's block: the call is found there.
    const callOf = new Map<number, Message>();
    for (const b of blocks) for (let i = b.start + 1; i < b.end; i++) callOf.set(i, history[b.start]!);
    const aboutUsedFile = (index: number): boolean => {
      const id = history[index]!.tool_call_id;
      const call = callOf.get(index)?.tool_calls?.find((c) => c.id === id);
      return call !== undefined && [...pathsIn([{ role: "assistant", content: [], tool_calls: [call] }])].some((path) => usedLater.has(path));
    };
    const stubs = (indices: readonly number[]): FitAction[] => indices.map((stub) => ({ stub }));
    const drops = (part: ReadonlyArray<{ index: number }>): FitAction[] => part.map((b) => ({ drop: b.index }));
    const old = blocks.slice(0, recent).filter((b) => b.role !== "system" && !task.has(b));
    const oldBulky = bulkyOutputs(blocks.slice(0, recent));
    const plan = [
      ...stubs(oldBulky.filter((i) => !aboutUsedFile(i))),
      ...drops(old.filter((b) => !important(b))),
      ...stubs(oldBulky.filter(aboutUsedFile)),
      ...drops(old.filter(important)),
      ...stubs(bulkyOutputs(blocks.slice(recent))),
      ...drops(blocks.slice(recent, -1).filter((b) => b.role !== "system" && !task.has(b))),
      ...drops([...task].reverse().filter((b) => b.index !== blocks.length - 1)),
    ];
    const fit = fitToBudget(history, plan, budget, { indexShare: this.#indexShare, refill: true });
    return { messages: fit.messages, usage: null, details: fit.details };
  }
}

/** The paths that `messages` mention (texts and tool-call arguments). */
function pathsIn(messages: readonly Message[]): Set<string> {
  const paths = new Set<string>();
  for (const message of messages) for (const [id, kind] of messageIdentifiers(message)) if (kind === "path") paths.add(id);
  return paths;
}
