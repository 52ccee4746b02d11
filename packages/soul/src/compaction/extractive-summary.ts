/**
 * A summary of messages without an LLM: the user's requests and
 * constraints verbatim, the files read and written, the errors met and how
 * they ended, and the decisions taken, within a token budget. Kode-cli's
 * summary counted messages and guessed topics; this one keeps the facts
 * that the work depends on.
 */
import { extractText, type Message } from "@kosong/core";
import type { Tokenizer } from "../tokens/index.js";
import type { TouchedFile } from "./file-registry.js";
import { isErrorResult, isUserTyped } from "./message-importance.js";
import { truncateText } from "./truncate-text.js";

/** Options of {@link extractiveSummary}. */
export interface ExtractiveSummaryOptions {
  /** The most tokens the summary may take. */
  maxTokens: number;
  tokenizer: Tokenizer;
  /** Files the session touched (from its `FileRegistry`), merged with those found in tool calls. */
  files?: readonly TouchedFile[];
}

const WRITE_TOOL = /write|edit|create|patch|replace|delete|remove|move|rename|mkdir|save|append/i;
const PATH_KEY = /^(path|paths|file|files|file_?path|filename|target|source|destination|dir|directory)$/i;
const DECISION = /\b(decid(e|ed|es|ing)|decisions?|chose|chosen|choose|going with|we will use|we'll use|instead of|prefer(s|red)?)\b/i;
const RESOLUTION = /\b(fix(es|ed)?|resolv(e|ed|es)|solv(e|ed|es)|works now|passes now|now pass(es)?|succeeded)\b/i;
const FAILURE = /\b(errors?|exceptions?|fail(s|ed|ing|ures?)?|crash(es|ed)?|broken)\b/i;

interface Facts {
  requests: string[];
  read: Set<string>;
  written: Set<string>;
  errors: string[];
  decisions: string[];
}

/** The summary of `messages` as markdown sections, at most `maxTokens` tokens (empty string when there is nothing to say). */
export function extractiveSummary(messages: readonly Message[], options: ExtractiveSummaryOptions): string {
  const facts = collectFacts(messages, options.files ?? []);
  const { tokenizer, maxTokens } = options;
  // Long items are cut to a cap that halves until everything fits; then the whole is cut as a last resort.
  for (let cap = 2000; cap >= 25; cap = Math.floor(cap / 2)) {
    const text = render(facts, (item) => truncateText(item, cap, tokenizer));
    if (tokenizer.count(text) <= maxTokens) return text;
  }
  return truncateText(render(facts, (item) => truncateText(item, 25, tokenizer)), maxTokens, tokenizer);
}

function collectFacts(messages: readonly Message[], files: readonly TouchedFile[]): Facts {
  const facts: Facts = { requests: [], read: new Set(), written: new Set(), errors: [], decisions: [] };
  const callNames = new Map<string, string>();
  for (const message of messages) {
    const text = extractText(message, "\n").trim();
    if (isUserTyped(message)) {
      if (text !== "") facts.requests.push(text);
    } else if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        callNames.set(call.id, call.function.name);
        for (const path of pathsIn(call.function.arguments)) (WRITE_TOOL.test(call.function.name) ? facts.written : facts.read).add(path);
      }
      for (const sentence of sentences(text)) {
        if (DECISION.test(sentence)) facts.decisions.push(sentence);
        else if (RESOLUTION.test(sentence) || FAILURE.test(sentence)) facts.errors.push(sentence);
      }
    } else if (isErrorResult(message)) {
      const tool = callNames.get(message.tool_call_id ?? "") ?? "tool";
      facts.errors.push(`${tool}: ${text.replace(/^<system>ERROR:?\s*/, "").replace("</system>", "").trim()}`);
    }
  }
  for (const file of files) (file.kind === "write" ? facts.written : facts.read).add(file.path);
  for (const path of facts.written) facts.read.delete(path);
  return facts;
}

function render(facts: Facts, item: (text: string) => string): string {
  const sections: string[] = [];
  const list = (title: string, items: readonly string[]): void => {
    if (items.length > 0) sections.push(`## ${title}\n${items.map((text) => `- ${item(text)}`).join("\n")}`);
  };
  list("User requests and constraints", facts.requests);
  list("Files written", [...facts.written]);
  list("Files read", [...facts.read]);
  list("Errors and how they ended", facts.errors);
  list("Decisions", facts.decisions);
  return sections.join("\n\n");
}

/** String values under path-like keys of a tool call's JSON arguments (nested objects and arrays included). */
function pathsIn(args: string | null): string[] {
  if (args === null || args === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return [];
  }
  const paths: string[] = [];
  const visit = (node: unknown, key: string | null): void => {
    if (typeof node === "string") {
      if (key !== null && PATH_KEY.test(key) && node.length < 500) paths.push(node);
    } else if (Array.isArray(node)) {
      for (const child of node) visit(child, key);
    } else if (node !== null && typeof node === "object") {
      for (const [k, child] of Object.entries(node)) visit(child, k);
    }
  };
  visit(value, null);
  return paths;
}

/** The sentences of a text (split after . ! ? or a line break). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
