/**
 * The balanced retention strategy: what matters plus the recent messages,
 * within a token budget. Kode's version kept every "important" message
 * and the last five whatever they cost, matched "error" inside other words,
 * and cut tool pairs apart; this one stubs bulky old tool outputs first,
 * drops whole blocks in order of importance, refills what it over-dropped,
 * and leaves an index of the identifiers it gave up.
 */
import { extractText, type Message, type ToolCall } from "@kosong/core";
import { type ConversationBlock, conversationBlocks } from "../conversation/index.js";
import { type Budget, type BudgetOptions, budgetOf, scaledBudget } from "./budget-options.js";
import type { Compaction, CompactionOptions, CompactionResult } from "./compaction.js";
import { CompactionError } from "./compaction-error.js";
import { type FitAction, fitToBudget } from "./fit-to-budget.js";
import { neverLonger } from "./never-longer.js";
import { messageIdentifiers } from "./identifier-index.js";
import { isErrorResult, isImportantMessage, isUserTyped } from "./message-importance.js";
import { recentBlockStart } from "./recent-blocks.js";
import { toolOutputStub } from "./compaction-notice.js";
import { toolCallExcerpt } from "./tool-call-excerpt.js";
import { agentLines, agentLinesMessage, definesWorkingName, keptLines } from "./agent-lines.js";
import { toolOutputExcerpt } from "./tool-output-excerpt.js";
import { identifierKeys, identifierPriors, lineKeys, lineWorth, marginalUses, valueKeys, viewsWorkingFile } from "./use-ranking.js";
import { pathKeys, WorkingSet } from "./working-set.js";

/** The share of the budget held back for the excerpts' count running above the calibrated estimate. */
const NEW_TEXT_HEADROOM = 0.05;

/** The most of the budget held back for the search hits of dropped rounds beyond the index's share (see searchHits). */
const SEARCH_HITS_SHARE = 0.05;

/**
 * The most of the budget held back for the lines the agent wrote in the removed messages that name what nothing kept names
 * (see removedLines), beyond the index's share. Picked from 1-5 % by three-fold cross-validation on the shared trajectories
 * (two folds picked it on their two thirds; the third picked 5 %, which cost a held-out cut the views its next edits needed).
 */
const REMOVED_LINES_SHARE = 0.03;

/** The share of a bulky output's use that its excerpt is expected to keep. */
const EXCERPT_KEEPS = 0.7;

/** The share of a block's topic that the agent's message keeps once the outputs are stubs (what it did, not what it saw). */
const CALL_KEEPS = 0.3;

/** Added to the weight of a line of an agent's script that names what nothing newer names: such lines are chosen first. */
const FIRST = 1e6;

/** The weight of a block's topic (what it shares with the working set) against the identifiers only it holds. */
const TOPIC = 1;
const REST = 1;
const IMPORTANT = 2;

/** Options of {@link PreserveImportantCompaction}. */
export interface PreserveImportantCompactionOptions extends BudgetOptions {
  /** User and assistant messages at the end that are kept before anything but the task (default 5, as Kode). */
  keepRecent?: number;
  /** A tool output larger than this many tokens is bulky: it becomes a stub before messages are dropped (default 200). */
  bulkyToolOutputTokens?: number;
  /** The share of the budget held at most for an index of the identifiers in what was given up (default 0.05; 0 for none). */
  indexShare?: number;
}

/**
 * Fits the conversation into `maxTokens` giving things up in this order
 * (the recent part is the last `keepRecent` user and assistant messages with
 * their tool results; the task is the first and the latest message the user
 * typed):
 *
 * 1-4. the blocks before the recent part, by expected use per token (least first): a block's use is
 *    its topic (what it shares with the files, symbols and tests the recent messages work on, more for
 *    recent blocks, double for the newest view of a working file and for an important message, see
 *    {@link isImportantMessage}) plus what only it holds: the identifiers nothing kept for sure shows
 *    (likelier the more often the agent wrote them) and the lines of a working file that no more
 *    useful kept view shows again (so an older view of the same lines goes before a view of other
 *    lines), each counted once, greedily; a bulky output first loses what its excerpt does not keep,
 *    then the block's outputs become stubs (the agent's own message, its prose and its call as written,
 *    stays: it is what the agent goes on to write again, and what the block is ranked by), then the
 *    agent's message is cut to its lines that name what nothing kept for sure and nothing newer it
 *    wrote names (see {@link agentLines}; ranked by those names per token, a block with no such line
 *    skips this), then the block goes; tool rounds with an error result go after all the others;
 * 5. bulky tool outputs of the recent part become stubs, oldest first;
 * 6. recent blocks but the last are dropped, oldest first;
 * 7. the task's messages, latest request first, then the first one;
 * 8. what is left is shrunk (every tool output stubbed, texts cut), oldest first, and dropped as a last resort.
 *
 * Each step runs only while the conversation is over budget; then whatever
 * was given up is put back, most useful first, while it fits. The notice of
 * what was removed carries first the lines the agent wrote in the removed
 * messages that name what nothing kept names (`schema_editor.create_model(A)`,
 * as written; see `removed-lines.ts`), in 3 % of the budget held back for
 * them, then the hit lines of the removed searches verbatim
 * (`grep -n`: `999: def union(…)` under its command, see `search-hits.ts`),
 * then an index of the paths, symbols and error lines of the removed
 * messages, in `indexShare` of the budget; hits that do not fit there get
 * up to 5 % more, held back in a second fitting. Needs no provider.
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
    this.#indexShare = options.indexShare ?? 0.05;
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
    return neverLonger(history, this.#compact(history, budget), budget, budget);
  }

  #compact(history: readonly Message[], budget: Budget): CompactionResult {
    const { counter, tokenizer } = budget;
    if (counter.count(history) <= budget.maxTokens) return { ...fitToBudget(history, [], budget), usage: null };
    const blocks = conversationBlocks(history).map((block, index) => ({ ...block, index }));
    const recent = recentBlockStart(history, blocks, Math.max(1, this.#keepRecent));
    const typed = blocks.filter((b) => isUserTyped(history[b.start]!));
    const task = new Set(typed);
    const recentFrom = blocks[recent]?.start ?? history.length;
    const working = new WorkingSet([...history.slice(0, recentFrom).filter(isUserTyped).slice(-1), ...history.slice(recentFrom)]);
    const important = (b: ConversationBlock): boolean => isImportantMessage(history[b.start]!);
    const failed = (b: ConversationBlock): boolean => history.slice(b.start + 1, b.end).some(isErrorResult);
    // A tool output sits in its assistant message's block: the call is found there.
    const callOf = (index: number, block: ConversationBlock): ToolCall | undefined =>
      history[block.start]!.tool_calls?.find((c) => c.id === history[index]!.tool_call_id);
    const excerpts = new Map<number, Message>();
    const priors = identifierPriors(history);
    // What a block adds beyond its topic: the identifiers and lines that nothing kept for sure shows, each counted once (see marginalUses).
    const covered = identifierKeys([...task].flatMap((b) => history.slice(b.start, b.end)).concat(history.slice(recentFrom)));
    // A line of the agent's own script is worth what it names of the working set and the names the agent keeps using.
    const weighLine = lineWorth(working, priors, covered);
    const old = blocks.slice(0, recent).filter((b) => b.role !== "system" && !task.has(b));
    // The lines of each old agent message that name what nothing kept and nothing newer it wrote names (see agentLines).
    const lines = agentLines(history, old.map((b) => b.start), covered, definesWorkingName(working));
    const room = (tokens: number): number => Math.round(Math.min(Math.max(tokens / 4, 120), Math.max(120, budget.maxTokens * 0.08)));
    const bulky = (b: ConversationBlock): number[] => {
      const found: number[] = [];
      // The agent's own bulky call (a script in a heredoc, a file written whole) is cut like an output.
      const start = history[b.start]!;
      const callTokens = start.role === "assistant" ? counter.message(start) : 0;
      // Its lines that name what nothing newer names come first (an excerpt holds what its last form would), then by worth.
      const own = new Set(lines.has(b.start) ? keptLines(lines.get(b.start)!) : []);
      const weigh = own.size === 0 ? weighLine : (line: string): number => (own.has(line) ? FIRST : 0) + weighLine(line);
      const callExcerpt = callTokens > this.#bulky ? toolCallExcerpt(start, weigh, room(callTokens)) : null;
      if (callExcerpt !== null) {
        excerpts.set(b.start, callExcerpt);
        found.push(b.start);
      }
      for (let i = b.start + 1; i < b.end; i++) {
        const message = history[i]!;
        const tokens = counter.message(message);
        if (message.role !== "tool" || isErrorResult(message) || tokens <= this.#bulky) continue;
        const excerpt = toolOutputExcerpt(message, callOf(i, b), working, room(tokens), tokenizer);
        if (excerpt !== null) excerpts.set(i, excerpt);
        found.push(i);
      }
      return found;
    };
    // Expected use of a block: what it shares with the working set, weighed by how recent it is. Its
    // excerpt keeps most of that use for a fraction of the tokens, so the give-up order is by use per
    // token: the rest of a bulky output (excerpt instead of all of it) goes before the block itself.
    // The newest view of each working file (the last old call that names it) counts double: it is what the next edit works from.
    const newestView = new Map<string, ConversationBlock>();
    for (const b of old) for (const path of pathsIn([history[b.start]!])) if (working.weightOf(path, "path") > 0) newestView.set(pathKeys(path)[0]!, b);
    const views = new Set(newestView.values());
    const items: Array<{ tier: number; density: number; action: FitAction; order: number }> = [];
    const measured = old.map((b) => {
      let relevance = 0;
      let full = 0;
      let cut = 0;
      const outputs = bulky(b);
      const kept: Message[] = [];
      for (let i = b.start; i < b.end; i++) {
        relevance += working.relevance(history[i]!);
        full += counter.message(history[i]!);
        const message = excerpts.get(i) ?? history[i]!;
        cut += counter.message(message);
        kept.push(message);
      }
      const age = history.length - b.end;
      const use = (views.has(b) ? 2 : 1) * (important(b) ? IMPORTANT : 1) * (1 + Math.log1p(relevance)) * (0.25 + Math.exp(-age / 40));
      const keysOf = (form: readonly Message[]): Map<string, number> => {
        const keys = new Map<string, number>();
        for (const key of identifierKeys(form)) keys.set(key, priors.get(key) ?? 0);
        // The lines of a view of a working file: a newer view of the same lines makes an older one redundant.
        const recency = 0.25 + Math.exp(-age / 40);
        for (let i = b.start + 1; i < b.end; i++) {
          if (form[i - b.start]!.role === "tool") for (const [key, value] of valueKeys(extractText(form[i - b.start]!, "\n"), recency)) keys.set(key, value);
          const call = callOf(i, b);
          if (call === undefined || !viewsWorkingFile(call, working)) continue;
          for (const [key, value] of lineKeys(extractText(form[i - b.start]!, "\n"), working, recency)) keys.set(key, Math.max(keys.get(key) ?? 0, value));
        }
        return keys;
      };
      const keys = keysOf(kept);
      // Before the block goes, its outputs become stubs: the agent's own message (its prose, its call, a script it may write
      // again) stays, paired with a result that says what was elided. The block is then ranked by what the agent wrote in
      // it, as written: the names of a whole script, not only of its excerpt, are what a later script repeats.
      const stubbed = history.slice(b.start, b.end).map((message) => (message.role === "tool" ? stubIfSmaller(message, counter) : message));
      let rest = 0;
      if (outputs.length > 0) for (const [key, value] of keysOf(history.slice(b.start, b.end))) if (!keys.has(key) && !covered.has(key)) rest += value;
      const calls = keysOf(stubbed);
      const toStub = stubbed.flatMap((message, offset) => (message.role === "tool" && message !== history[b.start + offset] ? [b.start + offset] : []));
      return { block: b, outputs, full, cut, use, keys, rest, calls, toStub, small: counter.count(stubbed) };
    });
    // What the outputs' stubs lose: what only the outputs hold, and no newer output shows again (names, lines of a file; a value
    // printed again is still worth its older copy, see valueKeys).
    const lostByStubs = new Map<ConversationBlock, number>();
    const newer = new Set<string>();
    for (const { block, keys, calls } of [...measured].reverse()) {
      let lost = 0;
      for (const [key, value] of keys) if (!calls.has(key) && !covered.has(key) && !newer.has(key)) lost += value;
      for (const key of keys.keys()) if (!key.startsWith("\u0001") && !calls.has(key)) newer.add(key);
      lostByStubs.set(block, lost);
    }
    const uses = marginalUses(
      // A block with no output to stub (a message of prose, a decision) keeps all of its topic.
      measured.map((m) => ({ tokens: m.small, base: TOPIC * (m.toStub.length > 0 ? CALL_KEEPS : 1) * m.use, keys: m.calls })),
      covered,
    );
    measured.forEach(({ block: b, outputs, full, cut, use, rest, toStub, small }, k) => {
      const tier = failed(b) ? 1 : 0;
      // The block goes when the use per token of its agent message (with its outputs as stubs) is lowest; its outputs become
      // stubs before that, when what only they hold per token is lowest; the rest of its bulky outputs (beyond the excerpts) before that.
      const dropDensity = uses[k]! / Math.max(small, 20);
      const own = lines.get(b.start);
      if (own !== undefined) {
        const lean = agentLinesMessage(history[b.start]!, own);
        const leanTokens = small - counter.message(history[b.start]!) + counter.message(lean);
        let names = 0;
        for (const key of own.names) names += priors.get(key) ?? 0;
        items.push({ tier, density: dropDensity, action: { replace: b.start, message: lean }, order: 2 });
        items.push({ tier, density: Math.max(dropDensity, names / Math.max(leanTokens, 20)), action: { drop: b.index }, order: 3 });
      } else items.push({ tier, density: dropDensity, action: { drop: b.index }, order: 2 });
      const stubDensity = Math.min(dropDensity, (TOPIC * (EXCERPT_KEEPS - CALL_KEEPS) * use + REST * lostByStubs.get(b)!) / Math.max(cut - small, 20));
      for (const i of toStub) items.push({ tier, density: stubDensity, action: { stub: i }, order: 1 });
      for (const i of outputs) {
        const action: FitAction = excerpts.has(i) ? { replace: i, message: excerpts.get(i)! } : { stub: i };
        items.push({ tier, density: Math.min(stubDensity, (TOPIC * (1 - EXCERPT_KEEPS) * use + REST * rest) / Math.max(full - cut, 20)), action, order: 0 });
      }
    });
    // Unimportant blocks go first (Kode's rule), each tier by use per token.
    items.sort((a, b) => a.tier - b.tier || a.density - b.density || a.order - b.order);
    const drops = (part: ReadonlyArray<{ index: number }>): FitAction[] => part.map((b) => ({ drop: b.index }));
    const excerptsOf = (part: ReadonlyArray<ConversationBlock>): FitAction[] =>
      part.flatMap((b) => bulky(b).map((i): FitAction => (excerpts.has(i) ? { replace: i, message: excerpts.get(i)! } : { stub: i })));
    const plan = [
      ...items.map((item) => item.action),
      ...excerptsOf(blocks.slice(recent)),
      ...drops(blocks.slice(recent, -1).filter((b) => b.role !== "system" && !task.has(b))),
      ...drops([...task].reverse().filter((b) => b.index !== blocks.length - 1)),
    ];
    const fitOptions = { indexShare: this.#indexShare, refill: true, headroom: NEW_TEXT_HEADROOM, condenseRepeats: true };
    let fit = fitToBudget(history, plan, budget, fitOptions);
    // The agent's lines and the search hits of what was given up get room of their own, as much as they need up to
    // REMOVED_LINES_SHARE and SEARCH_HITS_SHARE: fitted again with it held back.
    const wanted = fit.searchHitsWanted ?? 0;
    const linesWanted = fit.linesWanted ?? 0;
    if ((wanted > 0 || linesWanted > 0) && this.#indexShare > 0) {
      const searchHitsShare = Math.min(SEARCH_HITS_SHARE, wanted / budget.maxTokens);
      const linesShare = Math.min(REMOVED_LINES_SHARE, linesWanted / budget.maxTokens);
      fit = fitToBudget(history, plan, budget, { ...fitOptions, searchHitsShare, linesShare });
    }
    return { messages: fit.messages, usage: null, details: fit.details };
  }
}

/** `message` (a tool output) as its stub when the counter counts the stub smaller, else `message` itself. */
function stubIfSmaller(message: Message, counter: { message(m: Message): number }): Message {
  const tokens = counter.message(message);
  const stub = toolOutputStub(message, tokens);
  return counter.message(stub) < tokens ? stub : message;
}

/** The paths that `messages` mention (texts and tool-call arguments). */
function pathsIn(messages: readonly Message[]): Set<string> {
  const paths = new Set<string>();
  for (const message of messages) for (const [id, kind] of messageIdentifiers(message)) if (kind === "path") paths.add(id);
  return paths;
}
