/**
 * Tool-call ids made unique on receipt. A model (or a server) that repeats a
 * call id within one message, or reuses one from earlier in the
 * conversation, or sends none, would make the conversation invalid for good:
 * results can no longer be matched to their calls, and Anthropic refuses
 * duplicate `tool_use` ids in every later request. So each call is given an
 * id no other call of the conversation has before anything sees it.
 */
import type { Message, StreamedToolCall } from "./message.js";

/** Hands out ids unique among the calls of `history` and the calls received so far. */
export class UniqueToolCallIds {
  readonly #history: readonly Message[];
  /** The ids of the history's calls: shared with later steps, so never added to here. */
  #inHistory: Set<string> | null = null;
  /** The ids handed out for this message. */
  readonly #received = new Set<string>();

  constructor(history: readonly Message[]) {
    this.#history = history;
  }

  /**
   * `call` itself when its id is new and not empty; otherwise a copy with
   * the id `<id>_<n>` (`call_<n>` for an empty id), the smallest `n >= 2`
   * that no call has. The new id keeps the characters of the old one, so it
   * stays within the id pattern providers accept (`[A-Za-z0-9_-]`).
   */
  receive(call: StreamedToolCall): StreamedToolCall {
    const inHistory = (this.#inHistory ??= idsOf(this.#history));
    const taken = (id: string): boolean => inHistory.has(id) || this.#received.has(id);
    let id = call.id;
    if (id === "" || taken(id)) {
      const stem = id === "" ? "call" : id;
      let n = 2;
      while (taken(`${stem}_${n}`)) n += 1;
      id = `${stem}_${n}`;
    }
    this.#received.add(id);
    return id === call.id ? call : { ...call, id };
  }
}

/**
 * The ids of the calls in a history, by a message of it. A conversation
 * grows by appends, so a step walks back to the nearest message whose set
 * was filed and adds only what came after it. A set is filed when a history
 * passes a multiple of {@link FILED_EVERY} messages, so a step looks at
 * most that many messages back and writes the weak map once in that many
 * messages: the cost per step does not grow with the history. The set is
 * shared and only ever grows by messages of the history: after a revert it
 * may hold ids no longer in the history, which costs at most an unneeded
 * rename, never a duplicate. Ids of a message still being received are kept
 * apart, so a failed attempt that is retried does not rename the retry's
 * calls.
 */
const idsUpTo = new WeakMap<Message, Set<string>>();

/** A history's set is filed (by its last message) when it passes a multiple of this many messages. */
const FILED_EVERY = 64;

function idsOf(history: readonly Message[]): Set<string> {
  let start = history.length;
  let ids: Set<string> | undefined;
  while (start > 0 && ids === undefined) ids = idsUpTo.get(history[--start]!);
  if (ids === undefined) ids = new Set();
  else start += 1;
  for (let i = start; i < history.length; i += 1) for (const call of history[i]!.tool_calls ?? []) ids.add(call.id);
  if (Math.floor(history.length / FILED_EVERY) !== Math.floor(start / FILED_EVERY)) idsUpTo.set(history[history.length - 1]!, ids);
  return ids;
}
