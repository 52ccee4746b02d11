/**
 * Brings back what a compaction or tool-result aging took out of a context:
 * a range by its pointer (read from the rotation that kept it), or the last
 * view of a file (searched in what the context gained since its last
 * compaction, then in its rotations, newest first, each the same way).
 * Everything is read from the context's log; no workspace file is opened.
 */
import { RotationNotFoundError } from "@kosong/context";
import { extractText, type Message } from "@kosong/core";
import { isToolOutputStub } from "../compaction/index.js";
import type { Context } from "../context/index.js";
import { isPointerNotice } from "./pointer-notice.js";
import { isAged } from "./tool-result-aging.js";
import { RecallError } from "./recall-error.js";
import { recallExcerpt } from "./recall-excerpt.js";
import { formatPointer, parsePointer } from "./recall-pointer.js";
import { callsById, renderRange } from "./render-range.js";
import { samePath, stringArgument, toolCallPath } from "./tool-call-path.js";

/** Options of {@link ContextRecall}. */
export interface ContextRecallOptions {
  /** The most tokens a recall returns (default 4,000): longer content is excerpted, its start and end kept. */
  maxTokens?: number;
  /** How many of the newest rotations a file's last view is searched in (default 20). */
  maxRotations?: number;
}

/** What a recall brought back. */
export interface Recalled {
  /** Where it came from: the pointer, or `r<n>:<i>` / `context:<i>` for a file's view. */
  source: string;
  /** The content, excerpted to the cap (and to the query's lines, when one was given and found). */
  text: string;
  /** True when the query was given and found (the text is then those lines). */
  matched: boolean;
}

/** Tools that write a whole file: their `content` argument is a view of it. */
const WRITE_TOOL = /write|create|save/i;
/** Tools that change part of a file: neither their arguments nor their result are a view of it. */
const PARTIAL_WRITE_TOOL = /edit|replace|patch|delete|remove|move|rename|append|insert/i;
const CONTENT_KEY = /^(content|contents|text|file_text)$/;

/** Recalls from one context (see the module comment). */
export class ContextRecall {
  readonly #context: Context;
  readonly #maxTokens: number;
  readonly #maxRotations: number;

  constructor(context: Context, options: ContextRecallOptions = {}) {
    this.#context = context;
    this.#maxTokens = options.maxTokens ?? 4000;
    this.#maxRotations = options.maxRotations ?? 20;
  }

  /**
   * The messages `pointer` (`r<rotation>:<first>-<last>`) names, rendered
   * and excerpted.
   * @throws RecallError for text that is not a pointer, a rotation that does not exist, or a range outside it.
   */
  async range(pointer: string, query?: string): Promise<Recalled> {
    const parsed = parsePointer(pointer);
    if (parsed === null) throw new RecallError(`"${pointer.slice(0, 80)}" is not a recall pointer (they look like r3:12-40 or r3:7).`);
    const messages = await this.#rotationMessages(parsed.rotation);
    if (messages === null) throw new RecallError(`Rotation ${parsed.rotation} of this context does not exist (the pointer ${formatPointer(parsed)} names it).`);
    if (parsed.to > messages.length) {
      throw new RecallError(`Rotation ${parsed.rotation} holds ${messages.length} messages: ${formatPointer(parsed)} is outside it.`);
    }
    const text = renderRange(messages, parsed.from, parsed.to, callsById(messages));
    return { source: formatPointer(parsed), ...recallExcerpt(text, this.#maxTokens, query) };
  }

  /**
   * The last view of `path` this context holds: the result of the last call
   * that read it (or the content of the last call that wrote it whole),
   * searched in the current conversation and then in the newest rotations.
   * @throws RecallError when no view of the file is found.
   */
  async file(path: string, query?: string): Promise<Recalled> {
    const current = lastView(this.#context.history, path);
    if (current !== null) return { source: `context:${current.index}`, ...recallExcerpt(current.text, this.#maxTokens, query) };
    const rotations = (await this.#context.rotations()).map((r) => r.n).sort((a, b) => b - a).slice(0, this.#maxRotations);
    for (const n of rotations) {
      const view = lastView((await this.#rotationMessages(n)) ?? [], path);
      if (view !== null) return { source: `r${n}:${view.index}`, ...recallExcerpt(view.text, this.#maxTokens, query) };
    }
    throw new RecallError(`No view of ${path.slice(0, 200)} was found in this conversation or its ${rotations.length} newest earlier versions.`);
  }

  async #rotationMessages(n: number): Promise<Message[] | null> {
    try {
      return (await this.#context.readRotation(n)).messages;
    } catch (error) {
      if (RotationNotFoundError.isInstance(error)) return null;
      throw error;
    }
  }
}

/**
 * The newest view of `path` in `messages`: its index and text; null when
 * there is none, or when the newest one is no longer whole (a stub, an aged
 * output: the rotation that replaced it holds it whole). Only messages
 * after the last pointer notice count: a compaction leaves its notice after
 * what it wrote, and what it wrote (kept messages, stubs, excerpts) is in
 * the rotation it made, whole.
 */
function lastView(messages: readonly Message[], path: string): { index: number; text: string } | null {
  const calls = callsById(messages);
  const start = messages.findLastIndex(isPointerNotice) + 1;
  for (let i = messages.length - 1; i >= start; i--) {
    const message = messages[i]!;
    for (const call of [...(message.tool_calls ?? [])].reverse()) {
      const named = toolCallPath(call);
      const content = WRITE_TOOL.test(call.function.name) ? stringArgument(call, CONTENT_KEY) : null;
      if (named !== null && content !== null && samePath(named, path)) return { index: i, text: content };
    }
    if (message.role !== "tool" || message.tool_call_id === undefined) continue;
    const call = calls.get(message.tool_call_id);
    if (call === undefined || WRITE_TOOL.test(call.function.name) || PARTIAL_WRITE_TOOL.test(call.function.name)) continue;
    const named = toolCallPath(call);
    if (named === null || !samePath(named, path)) continue;
    if (isToolOutputStub(message) || isAged(message)) return null;
    const text = extractText(message);
    if (!text.startsWith("<system>ERROR")) return { index: i, text };
  }
  return null;
}
