/**
 * Tool-result aging: old tool outputs above a size are replaced by an
 * excerpt and a recall pointer to the whole output, oldest first, until
 * enough room is made. No model call; the soul does it when compaction is
 * due, before (and instead of) a full compaction when it makes enough room,
 * so a provider's cached prefix is broken only then.
 */
import { extractText, type Message } from "@kosong/core";
import { truncateText } from "../compaction/index.js";
import { charsPerTokenTokenizer, estimateMessageTokens } from "../tokens/index.js";
import { formatPointer } from "./recall-pointer.js";

/** Settings of tool-result aging (the soul's `toolResultAging`). */
export interface ToolResultAgingOptions {
  /** Only tool outputs of more than this many estimated tokens age (default 1,000). */
  minTokens: number;
  /** The newest this-many tool outputs never age (default 6). */
  keepRecent: number;
  /** Tokens of an aged output's excerpt, its start and its end (default 200). */
  excerptTokens: number;
}

/** The defaults. */
export const defaultToolResultAging: Readonly<ToolResultAgingOptions> = Object.freeze({ minTokens: 1000, keepRecent: 6, excerptTokens: 200 });

/** What aging made of a history. */
export interface AgedHistory {
  /** The history with the aged outputs replaced (the same objects elsewhere). */
  messages: Message[];
  /** Indexes of the aged outputs in the history. */
  aged: number[];
  /** Estimated tokens the aging saved. */
  saved: number;
}

const AGED_HEAD = "<system>Old tool output aged out of the context";

/**
 * `history` with its oldest large tool outputs (above `minTokens`, not among
 * the newest `keepRecent`, not aged before) replaced by an excerpt naming
 * their pointer in rotation `rotation`, until `need` estimated tokens are
 * saved (all of them when that is not reached).
 */
export function ageToolResults(history: readonly Message[], rotation: number, need: number, options: ToolResultAgingOptions): AgedHistory {
  const messages = [...history];
  const toolIndexes = history.flatMap((message, i) => (message.role === "tool" ? [i] : []));
  const eligible = toolIndexes.slice(0, Math.max(0, toolIndexes.length - options.keepRecent));
  const aged: number[] = [];
  let saved = 0;
  for (const i of eligible) {
    if (saved >= need) break;
    const message = history[i]!;
    const tokens = estimateMessageTokens(message);
    if (tokens <= options.minTokens || isAged(message)) continue;
    const replacement = agedOutput(message, tokens, formatPointer({ rotation, from: i, to: i + 1 }), options.excerptTokens);
    messages[i] = replacement;
    aged.push(i);
    saved += tokens - estimateMessageTokens(replacement);
  }
  return { messages, aged, saved };
}

/** True for a tool output that aging replaced. */
export function isAged(message: Message): boolean {
  const part = message.content[0];
  return message.role === "tool" && part?.type === "text" && part.text.startsWith(AGED_HEAD);
}

function agedOutput(message: Message, tokens: number, pointer: string, excerptTokens: number): Message {
  const excerpt = truncateText(extractText(message, "\n"), excerptTokens, charsPerTokenTokenizer, true);
  const text = `${AGED_HEAD} (${tokens} tokens): its start and end follow; Recall ${pointer} brings back the whole.</system>\n${excerpt}`;
  return { role: "tool", content: [{ type: "text", text }], tool_call_id: message.tool_call_id };
}
