/**
 * A summary of messages without an LLM: the user's requests and
 * constraints verbatim (the first in full, later ones when they fit), the
 * files read and written (from file tools, shell commands and tool
 * outputs), the commands run more than once, the errors met and how they
 * ended (failing tests and lint rules included), the decisions taken,
 * excerpts of the outputs about the working files, and an index of the
 * identifiers seen, within a token budget. Each fact section is capped so
 * that none crowds out the rest; the excerpts take what they leave but the
 * room of the search hits (the index's 5 %, and up to 2.5 % more that the
 * hits want), the hits and then the index what is left after them.
 * Kode's summary counted messages and guessed topics; this one keeps
 * the facts that the work depends on.
 */
import { extractText, type Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import type { TouchedFile } from "./file-registry.js";
import { identifierIndex } from "./identifier-index.js";
import { shellFiles } from "./shell-files.js";
import { SearchHits } from "./search-hits.js";
import { WorkingSet } from "./working-set.js";
import { workingExcerpts } from "./working-excerpts.js";
import { isErrorResult, isUserTyped } from "./message-importance.js";
import { argumentValues } from "./message-strings.js";
import { truncateText } from "./truncate-text.js";

/** Options of {@link extractiveSummary}. */
export interface ExtractiveSummaryOptions {
  /** The most tokens the summary may take. */
  maxTokens: number;
  tokenizer: Tokenizer;
  /** Files the session touched (from its `FileRegistry`), merged with those found in tool calls. */
  files?: readonly TouchedFile[];
  /** Messages that stay in the context after the summary: the identifier index leaves out what they show. */
  kept?: readonly Message[];
}

const WRITE_TOOL = /write|edit|create|patch|replace|delete|remove|move|rename|mkdir|save|append/i;
const PATH_KEY = /^(path|paths|file|files|file_?path|filename|target|source|destination|dir|directory)$/i;
const COMMAND_KEY = /^(command|cmd|script|commands)$/i;
/** A sentence stating a decision taken (not "instead of" in a description, not an intention to choose). */
const DECISION = /\b(decided|decisions?|chose|chosen|going with|we will use|we'll use)\b/i;
/** A sentence stating how something ended (not an intention: "let me fix this" is not one). */
const RESOLUTION = /\b(fixed|resolved|solved|works now|passes now|now pass(es)?|succeeded)\b/i;
/** A failing test or a lint finding in a tool output: pytest/jest/go lines, `file:line:col: rule message`, `…Error: …`. */
const FAILING_LINE = /^(?:FAILED|FAIL|ERROR|✗|✕|×|--- FAIL:)\s|^[^\s:]+:\d+(?::\d+)?:\s*(?:error|warning|[A-Z]\d{3,4}|[a-z]+(?:-[a-z]+)+)\b|^\w*(?:Error|Exception):\s/;

/** The fact sections after the user's requests, in the order they are written, with the share of their budget each may take at most. */
const SECTIONS = [
  ["Files written", 0.15],
  ["Files read", 0.15],
  ["Commands run more than once", 0.12],
  ["Errors and how they ended", 0.25],
  ["Failing tests and lint findings", 0.18],
  ["Decisions", 0.15],
] as const;

const REQUESTS = "User requests and constraints";

type Section = (typeof SECTIONS)[number][0] | typeof REQUESTS;

/** A section's items in the order they are written, each with its priority (lower is kept first). */
type Items = Array<{ text: string; priority: number }>;

/** The share of the summary the fact sections take at most (after the requests); the excerpts of the working files get the rest. */
const FACTS_SHARE = 0.45;
/** The share of the summary the identifier index takes at most (it gets only what the rest leaves). */
const INDEX_SHARE = 0.05;
/** The share of the summary the search hits may take beyond the index's share, held back from the excerpts (see extractiveSummary). */
const HITS_SHARE = 0.025;

/**
 * The summary of `messages` as markdown sections, at most `maxTokens` tokens
 * (empty string when there is nothing to say): the user's requests verbatim
 * (see {@link userRequests}), the facts (files written and read, commands run
 * more than once, errors and how they ended, failing tests, decisions, each
 * capped), excerpts of the outputs about what the `kept` messages work on
 * (see {@link workingExcerpts}), and in what is left (5 % at most, 7.5 %
 * when the search hits want more) the hit lines of the searches (see
 * {@link SearchHits}), then an index of the identifiers.
 */
export function extractiveSummary(messages: readonly Message[], options: ExtractiveSummaryOptions): string {
  const { tokenizer, maxTokens } = options;
  const facts = collectFacts(messages, options.files ?? []);
  const requests = userRequests(messages, maxTokens, tokenizer);
  const rest = maxTokens - tokenizer.count(requests) - 2;
  const parts: string[] = requests === "" ? [] : [requests];
  for (const [title, share] of SECTIONS) {
    const section = renderSection(title, facts.get(title) ?? [], Math.max(Math.floor(rest * FACTS_SHARE * share), Math.min(rest, 30)), tokenizer);
    if (section !== "") parts.push(section);
  }
  let text = parts.join("\n\n");
  const kept = options.kept ?? [];
  const working = new WorkingSet([...messages.filter(isUserTyped).slice(-1), ...kept]);
  const indexRoom = Math.floor(maxTokens * INDEX_SHARE);
  // The search hits may take more than the index's share: what they want beyond it (up to HITS_SHARE more) is held back
  // from the excerpts, which count those hits as shown (an excerpt of the same search then adds only what they lack).
  const searches = new SearchHits(messages, messages.keys(), { tokenizer, kept });
  const wanted = searches.section(indexRoom + Math.floor(maxTokens * HITS_SHARE), text);
  const held = wanted === "" ? 0 : Math.max(0, tokenizer.count(wanted) + 2 - indexRoom);
  const shown: Message[] = wanted === "" ? [] : [{ role: "user", content: [{ type: "text", text: wanted }] }];
  const excerpts = workingExcerpts(messages, working, maxTokens - tokenizer.count(text) - indexRoom - held - 4, tokenizer, [...kept, ...shown]);
  if (excerpts !== "") text = text === "" ? excerpts : `${text}\n\n${excerpts}`;
  const room = Math.min(indexRoom + held, maxTokens - tokenizer.count(text) - 2);
  // The hits of the searches come first (where things are, verbatim); the identifier index gets what they leave.
  const hits = searches.section(room, text);
  // A name the hits show is not listed again.
  const listed: Message[] = hits === "" ? [] : [{ role: "user", content: [{ type: "text", text: hits }] }];
  const index = identifierIndex(messages, { maxTokens: room - (hits === "" ? 0 : tokenizer.count(hits) + 2), tokenizer, kept: [...kept, ...listed] });
  for (const part of [hits, index]) if (part !== "") text = text === "" ? part : `${text}\n\n${part}`;
  return truncateText(text, maxTokens, tokenizer);
}

/** The tokens a summary needs to hold the first request of `messages` in full (0 when the user typed nothing). */
export function taskTokens(messages: readonly Message[], tokenizer: Tokenizer): number {
  const first = messages.find(isUserTyped);
  return first === undefined ? 0 : tokenizer.count(extractText(first, "\n").trim()) + 40;
}

/**
 * The user's requests and constraints of `messages` verbatim, as the
 * summary's first section: the first (the task) in full, cut (to half of
 * `maxTokens`) only when it alone exceeds it; then the later ones whole, the latest first,
 * while they fit (those that do not are counted in a closing line); at most
 * `maxTokens` tokens, empty when the user typed nothing. A model's summary
 * is followed by it, so the task never rests on a paraphrase.
 */
export function userRequests(messages: readonly Message[], maxTokens: number, tokenizer: Tokenizer): string {
  const requests = messages.filter(isUserTyped).map((m) => extractText(m, "\n").trim()).filter((text) => text !== "");
  if (requests.length === 0 || maxTokens < 16) return "";
  const heading = `## ${REQUESTS}`;
  let left = maxTokens - tokenizer.count(heading) - 20;
  // The task in full when it fits; when it alone is too long, it is cut to half of the room, leaving the rest to what follows.
  const whole = tokenizer.count(requests[0]!) + 2 <= left;
  const first = whole ? requests[0]! : truncateText(requests[0]!, Math.floor(left / 2), tokenizer);
  left -= tokenizer.count(first) + 2;
  const later = new Map<number, string>();
  for (let i = requests.length - 1; i >= 1; i--) {
    const cost = tokenizer.count(requests[i]!) + 2;
    if (cost > left) continue;
    later.set(i, requests[i]!);
    left -= cost;
  }
  const lines = [`- ${first}`, ...[...later].sort(([a], [b]) => a - b).map(([, text]) => `- ${text}`)];
  const missing = requests.length - 1 - later.size;
  if (missing > 0) lines.push(`(${missing} more request${missing === 1 ? "" : "s"} did not fit.)`);
  return `${heading}\n${lines.join("\n")}`;
}

/**
 * `## title` and as many items as fit `cap` tokens, higher priority first,
 * each cut to 70 % of the room left (all of it for the last) so one long
 * item leaves room for the next; written in their order.
 */
function renderSection(title: Section, items: Items, cap: number, tokenizer: Tokenizer): string {
  if (items.length === 0) return "";
  let left = cap - tokenizer.count(`## ${title}\n`);
  const chosen = new Map<number, string>();
  const order = items.map((item, position) => ({ ...item, position })).sort((a, b) => a.priority - b.priority || a.position - b.position);
  for (const [rank, item] of order.entries()) {
    if (left < 8) break;
    const text = truncateText(item.text, rank === order.length - 1 ? left - 2 : Math.floor(left * 0.7), tokenizer);
    left -= tokenizer.count(text) + 2;
    chosen.set(item.position, text);
  }
  if (chosen.size === 0) return "";
  const lines = [...chosen].sort(([a], [b]) => a - b).map(([, text]) => `- ${text}`);
  return `## ${title}\n${lines.join("\n")}`;
}

function collectFacts(messages: readonly Message[], files: readonly TouchedFile[]): Map<Section, Items> {
  const written = new Map<string, number>();
  const read = new Map<string, number>();
  const commands = new Map<string, number>();
  const errors: string[] = [];
  const failing = new Map<string, number>();
  const decisions: string[] = [];
  const callNames = new Map<string, string>();
  messages.forEach((message, position) => {
    const text = extractText(message, "\n").trim();
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        callNames.set(call.id, call.function.name);
        const writes = WRITE_TOOL.test(call.function.name);
        for (const [key, value] of argumentValues(call.function.arguments)) {
          if (key !== null && PATH_KEY.test(key) && value.length < 500) (writes ? written : read).set(value, position);
          else if (key === null || COMMAND_KEY.test(key)) {
            const command = value.trim().split("\n")[0]!.slice(0, 300);
            // A script's first line (`python -c "`, `cat > x.py << 'EOF'`) is not a command run again.
            if (command !== "" && !value.trim().includes("\n")) commands.set(command, (commands.get(command) ?? 0) + 1);
            const files = shellFiles(value);
            for (const path of files.written) written.set(path, position);
            for (const path of files.read) read.set(path, position);
          }
        }
      }
      // The agent's narration ("Let me fix this:", "The test fails because…") is not listed: its lines compete for the
      // excerpts by use (see workingExcerpts). Listed are only what it states as an outcome or a decision.
      for (const sentence of sentences(text)) {
        if (DECISION.test(sentence)) decisions.push(sentence);
        else if (RESOLUTION.test(sentence)) errors.push(sentence);
      }
    } else if (message.role === "tool") {
      if (isErrorResult(message)) {
        const tool = callNames.get(message.tool_call_id ?? "") ?? "tool";
        errors.push(`${tool}: ${text.replace(/^<system>ERROR:?\s*/, "").replace("</system>", "").trim()}`);
      }
      for (const line of text.split("\n")) if (line.length < 1000 && FAILING_LINE.test(line)) failing.set(line.trim().slice(0, 300), position);
    }
  });
  for (const file of files) (file.kind === "write" ? written : read).set(file.path, messages.length);
  for (const path of written.keys()) read.delete(path);
  const newestFirst = (map: Map<string, number>): Items => [...map].map(([text, at]) => ({ text, priority: -at }));
  const latestFirst = (list: readonly string[]): Items => list.map((text, i) => ({ text, priority: list.length - i }));
  return new Map<Section, Items>([
    ["Files written", newestFirst(written)],
    ["Files read", newestFirst(read)],
    ["Commands run more than once", [...commands].filter(([, n]) => n > 1).map(([text, n]) => ({ text: `\`${text}\` (${n}×)`, priority: -n }))],
    ["Errors and how they ended", latestFirst(errors)],
    ["Failing tests and lint findings", newestFirst(failing)],
    ["Decisions", latestFirst(decisions)],
  ]);
}

/** The sentences of a text (split after . ! ? or a line break). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
