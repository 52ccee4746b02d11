/**
 * The budget fitting shared by the retention strategies: stub tool outputs,
 * drop whole blocks (an assistant message with its tool results, or one
 * user or system message), shrink what is left, in an order the strategy
 * chooses, until the conversation fits. Cutting only whole blocks keeps
 * every tool call with its results; a notice in front of what is kept says
 * how many messages went, and keeps the conversation starting with a user
 * message.
 */
import type { ContentPart, Message } from "@kosong/core";
import { type ConversationBlock, conversationBlocks } from "../conversation/index.js";
import type { TokenCounter, Tokenizer } from "../tokens/index.js";
import type { Budget } from "./budget-options.js";
import type { CompactionDetails } from "./compaction.js";
import { droppedNotice, isToolOutputStub, toolOutputStub } from "./compaction-notice.js";
import { identifierIndex } from "./identifier-index.js";
import { removedLines, withoutKeptLines } from "./removed-lines.js";
import { SearchHits, withoutShownHits } from "./search-hits.js";
import { addShown, condensedNote, condensedOutput, ShownLines } from "./repeated-lines.js";
import { isToolOutputExcerpt } from "./tool-output-excerpt.js";
import { truncateText } from "./truncate-text.js";

/**
 * One thing a strategy is willing to give up: turn the tool message at
 * `index` into a stub, replace the tool message at `replace` by a smaller
 * `message` (an excerpt), or drop the block at `index` (of
 * {@link conversationBlocks}) whole.
 */
export type FitAction = { stub: number } | { drop: number } | { replace: number; message: Message };

/** The things a strategy gives up, in the order it gives them up. */
export type FitPlan = readonly FitAction[];

/** What {@link fitToBudget} returns. */
export interface FitResult {
  messages: Message[];
  /** Tokens of `messages`. */
  tokens: number;
  details: CompactionDetails;
  /**
   * The tokens all the search hits of what was given up would take, when they
   * did not all fit (0: all listed, no index, or a `searchHitsShare` was
   * already held back for them).
   */
  searchHitsWanted?: number;
  /**
   * The tokens all the agent's lines of what was given up (see
   * {@link removedLines}) would take, when they did not all fit (0: all
   * listed, or no index).
   */
  linesWanted?: number;
}

/** Options of {@link fitToBudget}. */
export interface FitOptions {
  /**
   * The share of the budget kept for an index of the identifiers in what is
   * given up (see {@link identifierIndex}), written into the notice; 0 (the
   * default) for a plain notice.
   */
  indexShare?: number;
  /**
   * A further share of the budget held back for the search hits of what is
   * given up (see {@link SearchHits}; default 0); with it, the identifier
   * index takes at most `indexShare` of what the hits leave. Without it, the
   * hits and the index share `indexShare`, the hits first.
   */
  searchHitsShare?: number;
  /**
   * A further share of the budget held back for the lines the agent wrote in
   * what is given up that name what nothing kept names (see
   * {@link removedLines}; default 0), written before the search hits; only
   * with an `indexShare`.
   */
  linesShare?: number;
  /** Put back what was given up, last given up first, while it fits (default false: a plain suffix stays a suffix). */
  refill?: boolean;
  /**
   * The share of the budget that the plan and the refill leave free (default
   * 0), for outputs with much new text (excerpts) whose provider count may run
   * above the calibrated estimate; the last resorts and `withinBudget` use the
   * whole budget.
   */
  headroom?: number;
  /**
   * Condense what the kept messages show twice (default false): after the
   * refill, each kept tool output's runs of lines that a newer kept tool
   * output shows again, and its runs of identical lines, become a marker
   * (see {@link condensedRepeats}); the room that makes goes to a further
   * refill. The condensing is not undone by a later refill.
   */
  condenseRepeats?: boolean;
}

/**
 * Fits `history` into `maxTokens`: the actions of `plan` in order, each
 * only while the conversation is over budget; then, over what is left,
 * every tool output becomes a stub (largest first), think parts go and long
 * texts are cut with a marker (oldest block first), and as a last resort
 * blocks are dropped (oldest first). With `refill`, a pass then undoes what
 * was given up, last given up first (the plan's order is least useful
 * first), while it fits: a greedy plan that overshot (a huge block dropped when a
 * small one would have done) gives the room back. With `indexShare`, that
 * share of the budget is held back for an index of the identifiers of the
 * messages given up, which the notice carries. When even the notice alone
 * does not fit, the result is the notice alone with `withinBudget: false`.
 */
export function fitToBudget(history: readonly Message[], plan: FitPlan, budget: Budget, options: FitOptions = {}): FitResult {
  const { counter } = budget;
  const indexRoom = Math.floor(budget.maxTokens * (options.indexShare ?? 0));
  const hitsRoom = Math.floor(budget.maxTokens * (options.searchHitsShare ?? 0));
  const linesRoom = indexRoom > 0 ? Math.floor(budget.maxTokens * (options.linesShare ?? 0)) : 0;
  const reserve = indexRoom + hitsRoom + linesRoom;
  const maxTokens = budget.maxTokens - reserve;
  const whole = Math.floor(budget.maxTokens * (1 - (options.headroom ?? 0)));
  const target = whole - reserve;
  const current: Array<Message | null> = [...history];
  let total = counter.count(history);
  let dropped = 0;
  const notices = new Map<number, number>();
  const noticeTokens = (n: number): number => {
    if (n === 0) return 0;
    let tokens = notices.get(n);
    if (tokens === undefined) notices.set(n, (tokens = counter.message(droppedNotice(n))));
    return tokens;
  };
  const over = (limit = maxTokens): boolean => total + noticeTokens(dropped) > limit;
  /** Every change, grouped by the action that made it: [index, before, after]. */
  const log: Array<Array<[number, Message | null, Message | null]>> = [];
  const replace = (index: number, message: Message | null): void => {
    const before = current[index]!;
    total += (message === null ? 0 : counter.message(message)) - (before === null ? 0 : counter.message(before));
    if (before !== null && message === null) dropped++;
    if (before === null && message !== null) dropped--;
    current[index] = message;
    log.at(-1)!.push([index, before, message]);
  };
  const act = (change: () => void): void => {
    log.push([]);
    change();
    if (log.at(-1)!.length === 0) log.pop();
  };
  const stub = (index: number): void => {
    const message = current[index];
    if (message === null || message === undefined || message.role !== "tool") return;
    const tokens = counter.message(message);
    const replacement = toolOutputStub(message, tokens);
    if (counter.message(replacement) >= tokens) return;
    act(() => replace(index, replacement));
  };
  const cut = (index: number, replacement: Message): void => {
    const message = current[index];
    if (message == null || counter.message(replacement) >= counter.message(message)) return;
    act(() => replace(index, replacement));
  };
  const drop = (block: ConversationBlock): void =>
    act(() => {
      for (let index = block.start; index < block.end; index++) if (current[index] !== null) replace(index, null);
    });

  const blocks = conversationBlocks(history);
  for (const action of plan) {
    if (!over(target)) break;
    if ("stub" in action) stub(action.stub);
    else if ("replace" in action) cut(action.replace, action.message);
    else drop(blocks[action.drop]!);
  }
  // Last resorts, each over what is left: stub every tool output (largest first), cut texts (oldest block first), drop blocks.
  const left = current.flatMap((message, index) => (message?.role === "tool" ? [index] : []));
  left.sort((a, b) => counter.message(current[b]!) - counter.message(current[a]!));
  for (const index of left) {
    if (!over()) break;
    stub(index);
  }
  for (const block of blocks) {
    if (!over()) break;
    if (current[block.start] === null) continue;
    const room = maxTokens - (total - blockTokens(block, current, counter)) - noticeTokens(Math.max(dropped, 1));
    act(() => shrinkBlock(block, room, current, budget.tokenizer, replace));
  }
  for (const block of blocks) {
    if (!over()) break;
    drop(block);
  }
  // With an index the notice stays even when no message is dropped (then it says that tool outputs were elided).
  const noticeCost = (n: number, withIndex: boolean): number => (n === 0 && withIndex ? counter.message(droppedNotice(0)) : noticeTokens(n));
  // Refill: undo actions, last first, while the result fits (an action whose messages changed again since is skipped).
  // Condensing (with condenseRepeats): a tool output gives up the runs of lines that a newer kept output shows again.
  const condensed = new Map<number, Message>();
  const count = (message: Message): number => counter.message(message);
  // The smallest each output can get (against every newer output of the history): the refill tries a condensed form only when it may fit.
  const smallest = new Map<number, number>();
  if (options.condenseRepeats === true) {
    const later = new ShownLines();
    for (let index = history.length - 1; index >= 0; index--) {
      const form = condensedOutput(history[index]!, later, count);
      if (form !== null) smallest.set(index, count(form));
      addShown(later, history[index]!);
    }
  }
  /** What `changes` replaced, each tool output condensed against the kept outputs newer than it. */
  const condensedBefore = (changes: ReadonlyArray<[number, Message | null, Message | null]>): Map<number, Message | null> => {
    const before = new Map(changes.map(([index, message]) => [index, message]));
    const low = Math.min(...before.keys());
    const later = new ShownLines();
    const forms = new Map<number, Message | null>();
    for (let index = current.length - 1; index >= low; index--) {
      const message = before.has(index) ? before.get(index)! : current[index];
      if (message == null) continue;
      const form = before.has(index) ? (condensedOutput(message, later, count) ?? message) : message;
      if (before.has(index)) forms.set(index, form);
      addShown(later, form);
    }
    for (const [index, message] of before) if (message === null) forms.set(index, null);
    return forms;
  };
  // Refill: undo actions, last first, while the result fits (an action whose messages changed again since is skipped); with
  // condenseRepeats, an action that does not fit is undone with its outputs condensed when that fits.
  const refill = (limit: number, noticeFloor = false): void => {
    for (let a = log.length - 1; a >= 0; a--) {
      const changes = log[a]!;
      if (!changes.every(([index, , after]) => current[index] === after)) continue;
      let delta = 0;
      let least = 0;
      let restored = 0;
      for (const [index, before, after] of changes) {
        const tokens = before === null ? 0 : count(before);
        delta += tokens - (after === null ? 0 : count(after));
        least += (smallest.get(index) ?? tokens) - (after === null ? 0 : count(after));
        if (after === null && before !== null) restored++;
      }
      const room = limit - total - noticeCost(dropped - restored, noticeFloor);
      if (delta > room && least > room) continue;
      const forms = delta > room ? condensedBefore(changes) : null;
      if (forms !== null) {
        let condensedDelta = 0;
        for (const [index, , after] of changes) condensedDelta += (forms.get(index) == null ? 0 : count(forms.get(index)!)) - (after === null ? 0 : count(after));
        if (condensedDelta > room) continue;
      }
      log.push([]);
      for (const [index, before] of changes) {
        const form = forms === null ? before : forms.get(index)!;
        replace(index, form);
        if (form !== before && form !== null) condensed.set(index, form);
      }
      log.pop();
    }
  };
  // Condensing what is kept: newest tool output first, each against the lines the newer kept outputs still show; not logged, so no refill undoes it.
  const condense = (): number => {
    const later = new ShownLines();
    let changed = 0;
    for (let index = current.length - 1; index >= 0; index--) {
      const message = current[index];
      if (message == null) continue;
      const replacement = condensedOutput(message, later, count);
      if (replacement !== null) {
        log.push([]);
        replace(index, replacement);
        log.pop();
        condensed.set(index, replacement);
        changed++;
      }
      addShown(later, replacement ?? message);
    }
    return changed;
  };
  /** Refill (when asked), then condense and refill into the room that made, a few rounds (a restored output may repeat a kept one). */
  const settle = (limit: number, noticeFloor = false): void => {
    if (options.refill === true) refill(limit, noticeFloor);
    for (let round = 0; round < 3 && options.condenseRepeats === true; round++) {
      if (condense() === 0) break;
      if (options.refill === true) refill(limit, noticeFloor);
    }
  };
  settle(target);

  let kept = current.filter((m): m is Message => m !== null);
  let notice = dropped === 0 ? null : droppedNotice(dropped);
  let hitsWanted = 0;
  let linesWanted = 0;
  if (reserve > 0) {
    const lostAt = history.flatMap((message, index) => (current[index] !== message ? [index] : []));
    const room = whole - total - (notice === null ? 0 : counter.message(notice)) - 16;
    // The agent's own lines that name what nothing kept names come first, in their own room; then the hits of the searches
    // given up (where things are, verbatim); the identifier index gets what they leave.
    const lines = removedLines(history, lostAt, { tokenizer: budget.tokenizer, kept, maxTokens: Math.min(linesRoom, room) });
    const linesTokens = lines === "" ? 0 : budget.tokenizer.count(lines) + 2;
    const allLines = linesRoom > 0 ? lines : removedLines(history, lostAt, { tokenizer: budget.tokenizer, kept, maxTokens: budget.maxTokens });
    const allLinesTokens = allLines === "" ? 0 : budget.tokenizer.count(allLines) + 2;
    if (allLinesTokens > linesTokens) linesWanted = allLinesTokens;
    const searches = new SearchHits(history, lostAt, { tokenizer: budget.tokenizer, kept });
    const hits = searches.section(room - linesTokens, lines);
    const hitsTokens = hits === "" ? 0 : budget.tokenizer.count(hits) + 2;
    // What all the hits would take, for a strategy that may fit again with room held back for them.
    const all = hitsRoom > 0 ? hits : searches.section(budget.maxTokens);
    const allTokens = all === "" ? 0 : budget.tokenizer.count(all) + 2;
    if (allTokens > hitsTokens) hitsWanted = allTokens;
    const left = room - linesTokens - hitsTokens;
    // A name the lines or the hits above show is not listed again.
    const shown: Message[] = lines === "" && hits === "" ? [] : [{ role: "user", content: [{ type: "text", text: `${lines}\n${hits}` }] }];
    const names = identifierIndex(
      lostAt.map((i) => history[i]!),
      { maxTokens: hitsRoom > 0 ? Math.min(left, indexRoom) : left, tokenizer: budget.tokenizer, kept: [...kept, ...shown] },
    );
    let index = [lines, hits, names].filter((part) => part !== "").join("\n\n");
    // The room the index leaves goes back to what was given up (the notice's count may grow by a digit: 4 tokens spare).
    // With an index the notice stays even when every message comes back: it costs at least a one-message notice.
    const extra = index === "" ? 0 : counter.message(droppedNotice(dropped, index)) - noticeCost(dropped, true) + 4;
    settle(whole - extra, index !== "");
    kept = current.filter((m): m is Message => m !== null);
    // A round put back shows its lines and its hits itself: the notice no longer lists them.
    if (hits !== "" || lines !== "") index = [withoutKeptLines(lines, kept), withoutShownHits(hits, kept), names].filter((part) => part !== "").join("\n\n");
    notice = index !== "" ? droppedNotice(dropped, index) : dropped === 0 ? null : droppedNotice(dropped);
  }
  let messages = notice === null ? kept : withNotice(kept, notice);
  let tokens = counter.count(messages);
  if (tokens > budget.maxTokens && reserve > 0) {
    // The index is an extra: when the tokenizer counts the whole notice higher than its parts, it goes.
    messages = dropped === 0 ? kept : withNotice(kept, droppedNotice(dropped));
    tokens = counter.count(messages);
  }
  const unchanged = history.filter((message, index) => current[index] === message).length;
  const original = new Set(history);
  const stubs = current.filter((message) => message !== null && !original.has(message) && isToolOutputStub(message)).length;
  const excerpts = current.filter((message) => message !== null && !original.has(message) && isToolOutputExcerpt(message)).length;
  const repeats = [...condensed].filter(([index, message]) => current[index] === message).length;
  const notes: string[] = [];
  if (repeats > 0) notes.push(condensedNote(repeats));
  if (tokens > budget.maxTokens) notes.push(`The budget of ${budget.maxTokens} tokens cannot be met: even the notice alone takes ${tokens}.`);
  return {
    messages,
    tokens,
    searchHitsWanted: hitsWanted,
    linesWanted,
    details: {
      kept: unchanged,
      dropped,
      stubs,
      ...(excerpts > 0 ? { excerpts } : {}),
      ...(repeats > 0 ? { condensed: repeats } : {}),
      filesRecovered: [],
      summarized: false,
      notes,
      tokensAfter: Math.ceil(tokens * budget.scale),
      withinBudget: tokens <= budget.maxTokens,
    },
  };
}

function blockTokens(block: ConversationBlock, current: ReadonlyArray<Message | null>, counter: TokenCounter): number {
  let tokens = 0;
  for (let index = block.start; index < block.end; index++) {
    const message = current[index];
    if (message != null) tokens += counter.message(message);
  }
  return tokens;
}

/** Drops think parts and cuts the texts of the block's user and assistant messages so the block takes about `room` tokens. */
function shrinkBlock(
  block: ConversationBlock,
  room: number,
  current: ReadonlyArray<Message | null>,
  tokenizer: Tokenizer,
  replace: (index: number, message: Message | null) => void,
): void {
  let texts = 0;
  for (let index = block.start; index < block.end; index++) {
    for (const part of current[index]?.content ?? []) if (part.type === "text") texts += tokenizer.count(part.text);
  }
  const share = texts === 0 ? 0 : Math.max(0, room) / texts;
  for (let index = block.start; index < block.end; index++) {
    const message = current[index];
    if (message == null || message.role === "tool") continue;
    const content: ContentPart[] = [];
    for (const part of message.content) {
      if (part.type === "think") continue;
      if (part.type !== "text" || share >= 1) content.push(part);
      else content.push({ type: "text", text: truncateText(part.text, Math.floor(tokenizer.count(part.text) * share * 0.9), tokenizer, true) });
    }
    if (content.length === 0 && !message.tool_calls?.length) content.push({ type: "text", text: "[... cut ...]" });
    if (content.length !== message.content.length || content.some((part, i) => part !== message.content[i])) replace(index, { ...message, content });
  }
}

/** `messages` with `notice` after the leading system messages. */
function withNotice(messages: readonly Message[], notice: Message): Message[] {
  let at = 0;
  while (at < messages.length && messages[at]!.role === "system") at++;
  return [...messages.slice(0, at), notice, ...messages.slice(at)];
}

/**
 * Fits a compacted conversation: the messages before `tailFrom` (system
 * messages, a summary, recovered files) stay while the verbatim tail from
 * `tailFrom` on gives up its oldest blocks (never its last); then the last
 * resorts of {@link fitToBudget}, with `options`. Details are reported
 * against the original `history`, with `summarised` messages counted as
 * dropped.
 */
export function fitCompacted(
  history: readonly Message[],
  compacted: Message[],
  tailFrom: number,
  summarised: number,
  notes: readonly string[],
  budget: Budget,
  options: FitOptions = {},
): FitResult {
  const blocks = conversationBlocks(compacted);
  const plan = blocks.flatMap((block, index) => (block.start >= tailFrom && index < blocks.length - 1 ? [{ drop: index }] : []));
  const fit = fitToBudget(compacted, plan, budget, options);
  const input = new Set(history);
  const details: CompactionDetails = {
    ...fit.details,
    kept: fit.messages.filter((m) => input.has(m)).length,
    dropped: summarised + fit.details.dropped,
    summarized: summarised > 0,
    notes: [...notes, ...fit.details.notes],
  };
  return { ...fit, details };
}
