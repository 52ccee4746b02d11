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
import { droppedNotice, toolOutputStub } from "./compaction-notice.js";
import { truncateText } from "./truncate-text.js";

/**
 * One thing a strategy is willing to give up: turn the tool message at
 * `index` into a stub, or drop the block at `index` (of
 * {@link conversationBlocks}) whole.
 */
export type FitAction = { stub: number } | { drop: number };

/** The things a strategy gives up, in the order it gives them up. */
export type FitPlan = readonly FitAction[];

/** What {@link fitToBudget} returns. */
export interface FitResult {
  messages: Message[];
  /** Tokens of `messages`. */
  tokens: number;
  details: CompactionDetails;
}

/**
 * Fits `history` into `maxTokens`: the actions of `plan` in order, each
 * only while the conversation is over budget; then, over what is left,
 * every tool output becomes a stub (largest first), think parts go and long
 * texts are cut with a marker (oldest block first), and as a last resort
 * blocks are dropped (oldest first). When even the notice alone does not
 * fit, the result is the notice alone with `withinBudget: false`.
 */
export function fitToBudget(history: readonly Message[], plan: FitPlan, budget: Budget): FitResult {
  const { maxTokens, counter } = budget;
  const current: Array<Message | null> = [...history];
  const changed = new Set<number>();
  let total = counter.count(history);
  let dropped = 0;
  const stubbed = new Set<number>();
  const notices = new Map<number, number>();
  const noticeTokens = (n: number): number => {
    if (n === 0) return 0;
    let tokens = notices.get(n);
    if (tokens === undefined) notices.set(n, (tokens = counter.message(droppedNotice(n))));
    return tokens;
  };
  const over = (): boolean => total + noticeTokens(dropped) > maxTokens;
  const replace = (index: number, message: Message | null): void => {
    total += (message === null ? 0 : counter.message(message)) - counter.message(current[index]!);
    current[index] = message;
    changed.add(index);
  };
  const stub = (index: number): void => {
    const message = current[index];
    if (message === null || message === undefined || message.role !== "tool") return;
    const tokens = counter.message(message);
    const replacement = toolOutputStub(message, tokens);
    if (counter.message(replacement) >= tokens) return;
    replace(index, replacement);
    stubbed.add(index);
  };
  const drop = (block: ConversationBlock): void => {
    for (let index = block.start; index < block.end; index++) {
      if (current[index] === null) continue;
      replace(index, null);
      dropped++;
    }
  };

  const blocks = conversationBlocks(history);
  for (const action of plan) {
    if (!over()) break;
    if ("stub" in action) stub(action.stub);
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
    shrinkBlock(block, room, current, budget.tokenizer, replace);
  }
  for (const block of blocks) {
    if (!over()) break;
    drop(block);
  }

  const kept = current.filter((m): m is Message => m !== null);
  const messages = dropped === 0 ? kept : withNotice(kept, droppedNotice(dropped));
  const tokens = counter.count(messages);
  const unchanged = history.length - changed.size;
  const stubs = [...stubbed].filter((index) => current[index] !== null).length;
  const notes: string[] = [];
  if (tokens > maxTokens) notes.push(`The budget of ${maxTokens} tokens cannot be met: even the notice alone takes ${tokens}.`);
  return {
    messages,
    tokens,
    details: { kept: unchanged, dropped, stubs, filesRecovered: [], summarized: false, notes, tokensAfter: tokens, withinBudget: tokens <= maxTokens },
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
  replace: (index: number, message: Message) => void,
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
 * resorts of {@link fitToBudget}. Details are reported against the
 * original `history`, with `summarised` messages counted as dropped.
 */
export function fitCompacted(
  history: readonly Message[],
  compacted: Message[],
  tailFrom: number,
  summarised: number,
  notes: readonly string[],
  budget: Budget,
): FitResult {
  const blocks = conversationBlocks(compacted);
  const plan = blocks.flatMap((block, index) => (block.start >= tailFrom && index < blocks.length - 1 ? [{ drop: index }] : []));
  const fit = fitToBudget(compacted, plan, budget);
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
