/**
 * A model's summary is checked deterministically before it is accepted: it
 * must not be longer than the messages it replaces (a compaction never grows
 * the context), and the user's requests and the working files must survive
 * it. What is missing is added (the requests verbatim, excerpts of the
 * working files); a summary too long for its room, or one whose additions
 * leave no room for it, is refused, so the strategy falls back to the
 * extractive summary. Every addition and refusal is a note.
 */
import type { Message } from "@kosong/core";
import type { Budget } from "./budget-options.js";
import { userRequests } from "./extractive-summary.js";
import { identifierIndex, messageIdentifiers } from "./identifier-index.js";
import { isUserTyped } from "./message-importance.js";
import { truncateText } from "./truncate-text.js";
import { workingExcerpts } from "./working-excerpts.js";
import { pathKeys, WorkingSet } from "./working-set.js";

/** The outcome of {@link checkedModelSummary}: the text to use, or null to fall back, with notes either way. */
export interface CheckedSummary {
  text: string | null;
  notes: string[];
}

/** The share of `maxTokens` the identifier index may take at most after a checked summary. */
const INDEX_SHARE = 0.05;

/**
 * `text` (a model's summary of `summarised`) checked against what it
 * replaces, then completed and fitted into `maxTokens` (itself never more
 * than the tokens of `summarised`):
 *
 * - longer than `summarised`: refused; longer than `maxTokens`: cut (at a line boundary, with a marker);
 * - a request of the user not quoted verbatim: the requests section follows
 *   the summary (see {@link userRequests});
 * - a working file (a file the summarised tool calls name and the `kept`
 *   messages work on) not named: excerpts of the working files follow;
 * - then an index of the identifiers in the room left (5 % at most).
 *
 * When the additions leave the model's text less than a quarter of the
 * room, the summary is refused as well.
 */
export function checkedModelSummary(text: string, summarised: readonly Message[], kept: readonly Message[], maxTokens: number, budget: Budget): CheckedSummary {
  const { tokenizer, counter } = budget;
  const replaced = counter.count(summarised);
  const room = Math.min(maxTokens, replaced);
  const tokens = tokenizer.count(text);
  if (tokens > replaced) {
    return { text: null, notes: [`The model's summary (${tokens} tokens) is longer than the ${replaced} tokens of the messages it replaces; used the extractive summary.`] };
  }
  const notes: string[] = [];
  const additions: string[] = [];
  const requests = summarised.filter(isUserTyped).map((m) => m.content.flatMap((p) => (p.type === "text" ? [p.text.trim()] : [])).join("\n"));
  if (requests.some((request) => request !== "" && !text.includes(request))) {
    // The requests may take all the room but a little: with too little left for the model's text, the extractive summary (which keeps them too) is used.
    const section = userRequests(summarised, room - 24, tokenizer);
    if (section !== "") {
      additions.push(section);
      notes.push("Added the user's requests verbatim after the model's summary, which did not quote them.");
    }
  }
  const working = new WorkingSet([...summarised.filter(isUserTyped).slice(-1), ...kept]);
  const missing = workingFiles(summarised, working).filter((path) => !pathKeys(path).some((key) => text.includes(key)));
  if (missing.length > 0) {
    const left = room - tokenizer.count(additions.join("\n\n")) - Math.floor(room * 0.25) - Math.floor(room * INDEX_SHARE);
    const excerpts = workingExcerpts(summarised, working, Math.min(left, Math.floor(room * 0.4)), tokenizer, kept);
    const names = `Working files: ${missing.join(", ")}`;
    additions.push(excerpts === "" ? names : `${names}\n\n${excerpts}`);
    notes.push(`Added the working files the model's summary did not name (${missing.length}) and excerpts of them.`);
  }
  const added = additions.join("\n\n");
  const modelRoom = room - tokenizer.count(added) - 4;
  if (modelRoom < Math.max(16, Math.min(tokens, room / 4))) {
    return { text: null, notes: [...notes, "The model's summary left no room for the requests and working files it lacks; used the extractive summary."] };
  }
  const body = [truncateText(text, modelRoom, tokenizer), added].filter((part) => part !== "").join("\n\n");
  const indexRoom = Math.min(Math.floor(room * INDEX_SHARE), room - tokenizer.count(body) - 4);
  const index = identifierIndex(summarised, { maxTokens: indexRoom, tokenizer, kept });
  return { text: index === "" ? body : `${body}\n\n${index}`, notes };
}

/** The paths the tool calls of `messages` name that the working set holds, newest first, without repeats (by normalised suffix). */
function workingFiles(messages: readonly Message[], working: WorkingSet): string[] {
  const found = new Map<string, string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant" || message.tool_calls === undefined) continue;
    for (const [id, kind] of messageIdentifiers({ ...message, content: [] })) {
      const key = pathKeys(id)[0];
      if (kind === "path" && key !== undefined && !found.has(key) && working.weightOf(id, "path") > 0) found.set(key, id);
    }
  }
  return [...found.values()].slice(0, 12);
}
