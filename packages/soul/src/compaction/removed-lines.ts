/**
 * The lines the agent wrote in the messages a compaction gave up, where they
 * name what nothing kept names: of its prose and its calls' arguments (a
 * command, a script in a heredoc, a file's contents), each line that uses a
 * name no kept message shows, as the agent wrote it. An agent goes on to
 * write what it wrote before (the next script configures the settings, sets
 * up the models and calls the methods the last ones did); an index keeps the
 * bare name, the line keeps how it was used, with its arguments. Chosen by
 * how likely their names are to be used again per token, each name counted
 * once, so one line per name at most.
 */
import type { Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { nameKeys } from "./agent-lines.js";
import { writtenStrings } from "./message-strings.js";
import { noticeLine } from "./notice-line.js";
import { chooseByUse, identifierKeys, identifierPriors, roughTokens } from "./use-ranking.js";

/** The title of the section; it comes before the search hits and the identifier index in the notice. */
export const REMOVED_LINES_TITLE = "## Lines the agent wrote in the removed messages";

/** A line is kept up to this many characters (a minified line is cut, not dropped: its start names what it uses). */
const LINE_CHARS = 160;

/**
 * A line of fewer tokens is ranked (and chosen greedily) as if it had this many: lines are short, and at the excerpts'
 * floor of 20 most would rank alike (content bench, preserve-important at 30 %: 6 fewer identifiers kept).
 */
const LINE_TOKENS_MIN = 8;

/** Options of {@link removedLines}. */
export interface RemovedLinesOptions {
  /** The most tokens the section may take. */
  maxTokens: number;
  tokenizer: Tokenizer;
  /** Messages that stay in the context: a name they show is no reason to list a line. */
  kept: readonly Message[];
}

/**
 * The lines of the assistant messages among `history[lost]` that name
 * something no message of `kept` names (paths by their normalised suffix),
 * each distinct line once (its newest copy), chosen greedily by the priors
 * of the names only they add per token (see {@link identifierPriors},
 * {@link chooseByUse}), at most `maxTokens` tokens, written oldest first
 * under {@link REMOVED_LINES_TITLE}, each as one notice-safe line (see
 * {@link noticeLine}); the empty string when there is none or no room.
 */
export function removedLines(history: readonly Message[], lost: Iterable<number>, options: RemovedLinesOptions): string {
  const { tokenizer, maxTokens } = options;
  if (maxTokens < 24) return "";
  const covered = identifierKeys(options.kept);
  const priors = identifierPriors(history);
  const seen = new Set<string>();
  const candidates: Array<{ at: number; order: number; text: string; tokens: number; base: number; keys: Map<string, number> }> = [];
  const positions = [...lost].filter((i) => history[i]?.role === "assistant").sort((a, b) => b - a);
  for (const at of positions) {
    for (const text of writtenStrings(history[at]!)) {
      for (const raw of text.split("\n")) {
        const line = noticeLine(raw, LINE_CHARS);
        if (line === "" || seen.has(line)) continue;
        const keys = new Map<string, number>();
        for (const key of nameKeys(line)) if (!covered.has(key)) keys.set(key, priors.get(key) ?? 0);
        if (keys.size === 0) continue;
        seen.add(line);
        // Its tokens with the newline that ends it.
        candidates.push({ at, order: candidates.length, text: line, tokens: roughTokens(line) + 1, base: 0, keys });
      }
    }
  }
  const room = maxTokens - tokenizer.count(REMOVED_LINES_TITLE) - 2;
  // Oldest message first, each message's lines in their order (candidates are read newest message first).
  const chosen = chooseByUse(candidates, covered, room, tokenizer, 1, LINE_TOKENS_MIN).sort((a, b) => a.at - b.at || a.order - b.order);
  return chosen.length === 0 ? "" : `${REMOVED_LINES_TITLE}\n${chosen.map((c) => c.text).join("\n")}`;
}

/**
 * `section` (what {@link removedLines} wrote) without the lines a message of
 * `kept` shows (a round put back after the section was written); the empty
 * string when none is left. Never longer than `section`.
 */
export function withoutKeptLines(section: string, kept: readonly Message[]): string {
  if (section === "") return section;
  const shown = new Set<string>();
  for (const message of kept) {
    if (message.role !== "assistant") continue;
    for (const text of writtenStrings(message)) for (const line of text.split("\n")) shown.add(noticeLine(line, LINE_CHARS));
  }
  const [title, ...lines] = section.split("\n");
  const left = lines.filter((line) => !shown.has(line));
  return left.length === 0 ? "" : [title, ...left].join("\n");
}

