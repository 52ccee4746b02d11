/**
 * Excerpts of the working files for a summary: the tool outputs of the
 * summarised messages, each cut to its lines about what the kept messages
 * work on (see {@link toolOutputExcerpt}) under the command that produced
 * it, and the agent's own scripts and file contents cut the same way (see
 * {@link toolCallExcerpt}) or to their lines that name what nothing kept and
 * nothing newer they wrote names, with the lines defining a name the kept
 * messages work on (see {@link agentLines}; both forms compete, the second
 * chosen counts only the names the first does not show), chosen by
 * marginal use per token within a budget (see {@link chooseByUse}: topic, plus names and lines that the
 * kept messages and the excerpts chosen before do not show). A summary then
 * keeps the lines the next steps need, not only the files' names. The names
 * a view of a working file holds count for the view, not for the lines form
 * of an agent's message (the view shows them in place, with the lines around
 * them); and an older view whose lines one newer view shows all of gives
 * those lines to the newer one (its value is the newer view's, which holds
 * them together with what surrounds them and as the file was last seen).
 * An output's excerpt leaves out the tool's frame lines (`<output>`,
 * `</output>`, a zero return code): the room goes to lines of content.
 */
import { extractText, type Message, type ToolCall } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import { argumentValues } from "./message-strings.js";
import { outputFrameClose, outputFrameOpen } from "./output-frame.js";
import { MIN_LINES, toolCallExcerpt } from "./tool-call-excerpt.js";
import { definesWorkingName, agentLines, keptLines } from "./agent-lines.js";
import { toolOutputExcerpt } from "./tool-output-excerpt.js";
import { isSearchOutput } from "./search-hits.js";
import { chooseByUse, identifierKeys, identifierPriors, lineKeys, lineWorth, roughTokens, shownLineKeys, valueKeys, viewsWorkingFile } from "./use-ranking.js";
import type { WorkingSet } from "./working-set.js";

/** The heading of the excerpts section of a summary. */
export const WORKING_EXCERPTS_TITLE = "## Excerpts of the working files";

/**
 * The excerpts section for `messages` (oldest first), at most `maxTokens`
 * tokens; the empty string when no output is about the working set or
 * nothing fits. Excerpts are chosen by their marginal use per token (what
 * they share with the working set, more for recent ones, plus the names and
 * working-file lines that `kept` and the excerpts chosen before do not show),
 * and written in their original order.
 */
export function workingExcerpts(
  messages: readonly Message[],
  working: WorkingSet,
  maxTokens: number,
  tokenizer: Tokenizer,
  kept: readonly Message[] = [],
): string {
  if (working.empty || maxTokens < 60) return "";
  const calls = new Map<string, ToolCall>();
  const priors = identifierPriors(messages);
  const covered = identifierKeys(kept);
  const room = Math.min(Math.max(120, Math.floor(maxTokens / 4)), 600);
  const worth = lineWorth(working, priors, covered);
  // The topic of one of the agent's own messages: what it shares with the working set, more for recent ones.
  const ownBase = (message: Message, position: number): number => (1 + Math.log1p(working.relevance(message))) * (0.25 + (position + 1) / messages.length) * 0.5;
  const candidates: Array<{ position: number; text: string; tokens: number; base: number; keys: Map<string, number>; lines?: true; view?: { body: string; recency: number } }> = [];
  // The lines of the agent's own messages that name what nothing kept and nothing newer it wrote names: the other, smaller form of its message.
  // A short command is shown whole as its output's header: of a message without a long argument (a script, a file's contents), only the prose.
  const long = (m: Message): boolean => (m.tool_calls ?? []).some((c) => argumentValues(c.function.arguments).some(([, v]) => v.split("\n").length >= MIN_LINES));
  const written = messages.map((m): Message => (m.role !== "assistant" || long(m) ? m : { ...m, tool_calls: [] }));
  const own = agentLines(written, messages.flatMap((m, i) => (m.role === "assistant" ? [i] : [])), covered, definesWorkingName(working));
  for (const [position, lines] of own) {
    const text = keptLines(lines).join("\n");
    const keys = new Map<string, number>();
    for (const key of lines.names) keys.set(key, (priors.get(key) ?? 0) * AGENT_LINES_WEIGHT);
    // Its topic, as the other form's: what the message shares with the working set, more for recent ones.
    const base = keptLines(lines).some((line) => working.lineWeight(line) > 0) ? ownBase(messages[position]!, position) : 0;
    candidates.push({ position, text: `$ ${text}`, tokens: roughTokens(text), base, keys, lines: true });
  }
  messages.forEach((message, position) => {
    for (const call of message.tool_calls ?? []) calls.set(call.id, call);
    if (message.role === "assistant") {
      // The agent's own script or file contents, cut to the lines about the working set and the names it keeps using.
      const cut = toolCallExcerpt(message, worth, room) ?? message;
      const text = (cut.tool_calls ?? []).flatMap((call) => argumentValues(call.function.arguments).map(([, v]) => v)).filter((v) => v.includes("\n")).join("\n");
      if (text === "") return;
      const tokens = roughTokens(text);
      if (tokens > (room + 40) * 1.25) return;
      const keys = new Map<string, number>();
      for (const key of identifierKeys([{ role: "user", content: [{ type: "text", text }] }])) keys.set(key, priors.get(key) ?? 0);
      candidates.push({ position, text: `$ ${text}`, tokens, base: ownBase(message, position), keys });
      return;
    }
    if (message.role !== "tool") return;
    const relevance = working.relevance(message);
    const call = calls.get(message.tool_call_id ?? "");
    // An output about nothing the kept messages work on is not excerpted (excerpting every output costs more than it finds).
    if (relevance === 0) {
      // But a short result (what a script printed, "Test passed!") is kept whole by what it printed: the next steps quote it.
      const result = shortResult(message, call, (position + 1) / messages.length);
      if (result !== null) candidates.push({ position, ...result });
      return;
    }
    const excerpt = toolOutputExcerpt(message, call, working, room, tokenizer);
    const body = withoutFrame(excerpt === null ? extractText(message, "\n") : extractText(excerpt, "\n"));
    const text = `${commandLine(call)}\n${body}`;
    const tokens = roughTokens(text);
    if (tokens > (room + 40) * 1.25) return;
    const recency = 0.25 + (position + 1) / messages.length;
    const printed: Message = { role: "tool", content: [{ type: "text", text }], tool_call_id: message.tool_call_id };
    const keys = new Map<string, number>();
    for (const key of identifierKeys([printed])) keys.set(key, priors.get(key) ?? 0);
    for (const [key, value] of valueKeys(body, recency)) keys.set(key, value);
    const base = (1 + Math.log1p(relevance)) * recency;
    candidates.push({ position, text, tokens, base, keys, ...(call !== undefined && viewsWorkingFile(call, working) ? { view: { body, recency } } : {}) });
  });
  // A name a view holds counts for the view, not for an agent's lines that name it too.
  const viewed = new Set(candidates.flatMap((c) => (c.view === undefined ? [] : [...c.keys.keys()])));
  for (const candidate of candidates) if (candidate.lines === true) for (const key of viewed) candidate.keys.delete(key);
  // The lines of a view, newest first: the neighbours of what the kept messages and the newer views show are worth more (see lineKeys).
  const shown = shownLineKeys(kept, working);
  const newer: Array<Set<string>> = [];
  for (const candidate of [...candidates].reverse()) {
    if (candidate.view === undefined) continue;
    const lines = lineKeys(candidate.view.body, working, candidate.view.recency, shown);
    const own = new Set([...lines.keys()].filter((key) => key.startsWith("\u0000")));
    // An older view whose every line one newer view shows is worth nothing more for its lines.
    const superseded = newer.some((view) => [...own].every((key) => view.has(key)));
    newer.push(own);
    if (!superseded) for (const [key, value] of lines) candidate.keys.set(key, value);
    for (const key of own) shown.add(key);
  }
  // Best marginal use per token first (what the kept messages show counts no more), while they fit; in their order.
  const chosen = chooseByUse(candidates, covered, maxTokens - tokenizer.count(WORKING_EXCERPTS_TITLE) - 2, tokenizer, 2).sort((a, b) => a.position - b.position);
  return chosen.length === 0 ? "" : `${WORKING_EXCERPTS_TITLE}\n${chosen.map((c) => c.text).join("\n\n")}`;
}

/** The most tokens of a short result kept whole though it names nothing of the working set (chosen by 3-fold cross-validation from 40, 80, 120 and 160, which score alike). */
const SHORT_RESULT_TOKENS = 40;
/** A short result's topic, against an output about the working set's (1 + log(1 + relevance)), times recency. */
const SHORT_RESULT_BASE = 0.5;
/** How much more a name counts in the agent's own lines than its prior (chosen by 3-fold cross-validation from 1, 1.5 and 2). */
const AGENT_LINES_WEIGHT = 1.5;

/**
 * A tool output about nothing of the working set as an excerpt candidate when it is short (at most
 * {@link SHORT_RESULT_TOKENS}) and not a search's (its hits have their own section): the whole output under its command,
 * worth what it printed (see {@link valueKeys}) and a small topic; `null` otherwise. `age` is its position in the
 * summarised messages, (0, 1].
 */
function shortResult(message: Message, call: ToolCall | undefined, age: number): { text: string; tokens: number; base: number; keys: Map<string, number> } | null {
  const body = withoutFrame(extractText(message, "\n")).trim();
  const text = `${commandLine(call)}\n${body}`;
  const tokens = roughTokens(text);
  if (body === "" || tokens > SHORT_RESULT_TOKENS || isSearchOutput(body)) return null;
  const recency = 0.25 + age;
  return { text, tokens, base: recency * SHORT_RESULT_BASE, keys: valueKeys(body, recency) };
}

/** A zero return code as a tool writes it above its output (`<returncode>0</returncode>`). */
const ZERO_CODE = /^\s*<([\w-]+)>0<\/\1>\s*$/;

/**
 * `text` (an output, or its excerpt after a `[excerpt: …]` header) without
 * the tool's frame: a zero return code and the `<output>` line above the
 * content (within its first 3 lines), and the `</output>` line that ends
 * it. They hold nothing a next step uses; a nonzero return code stays, and
 * so does every line of the content, a lone tag included (`<div>`, `</template>`:
 * a markup file's lines, which the next edit's old text spans).
 */
function withoutFrame(text: string): string {
  const lines = text.split("\n");
  const start = lines[0]?.startsWith("[excerpt: ") === true ? 1 : 0;
  const frame = outputFrameOpen(lines, start);
  const open = frame < 0 ? -1 : frame - start;
  const head = open < 0 ? (ZERO_CODE.test(lines[start] ?? "") ? 1 : 0) : open + 1;
  const above = lines.slice(start, start + head).filter((line, i) => i !== open && !ZERO_CODE.test(line));
  const rest = lines.slice(start + head);
  // The closing line, before the blank line an output that ends with a newline leaves.
  const close = outputFrameClose(lines, frame);
  if (close >= 0) rest.splice(close - start - head, 1);
  return [...lines.slice(0, start), ...above, ...rest].join("\n");
}

/** `$ command` for a shell call, `name(path)` for other tools, one line. */
function commandLine(call: ToolCall | undefined): string {
  if (call === undefined) return "$ (tool output)";
  const values = argumentValues(call.function.arguments);
  const command = values.find(([key]) => key === null || /^(command|cmd)$/.test(key))?.[1];
  const line = command !== undefined ? `$ ${command}` : `${call.function.name}(${values.map(([, v]) => v).join(", ")})`;
  const first = line.split("\n")[0]!;
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}
