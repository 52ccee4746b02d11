/**
 * Merging a stream of parts into one assistant message, by kosong's rules:
 *
 * - text merges into the open text part;
 * - think merges into the open think part until that part has a signature
 *   (`encrypted`); a part carrying a signature (a signature-only part
 *   `think: ""` included) attaches it to the open think part and closes it
 *   for further merging;
 * - an argument fragment ({@link ToolCallPart}) merges into the open tool
 *   call; a fragment with an `index` goes to the call streamed with that
 *   `index`, also when other calls have started since (interleaved parallel
 *   calls);
 * - any other part closes the open group and starts a new one.
 *
 * A tool call is complete (reported, so that it may run) only once it can
 * no longer grow: a call without `index` when its group closes; an indexed
 * call when its group closes and its arguments are a whole JSON object (a
 * later fragment could only make them invalid), or when the stream ends.
 * So a stream that sends calls one after another starts each call as the
 * next begins, and an interleaving stream never has a call reported on half
 * its arguments. Calls still incomplete when a stream breaks are dropped
 * ({@link MessageMerger.abandon}).
 *
 * The merger never mutates a part it receives: a part that starts a group is
 * copied once, later parts are only read. A {@link StreamedToolCall}'s
 * `index` is never stored in the message.
 */
import { ChatProviderError } from "./errors.js";
import type { ContentPart, Message, StreamedMessagePart, StreamedToolCall, TextPart, ThinkPart, ToolCall, ToolCallPart } from "./message.js";

/** Accumulates streamed parts into {@link MessageMerger.message}. */
export class MessageMerger {
  /** The message built so far (role assistant); groups appear as soon as they start. */
  readonly message: Message = { role: "assistant", content: [] };
  /** True once {@link push} rejected a fragment as malformed. */
  malformed = false;
  // The open group, in the slot of its kind (at most one slot is set; media
  // parts never merge, so they need none). Separate slots keep every property
  // access on the hot path monomorphic.
  private openText: TextPart | null = null;
  private openThink: ThinkPart | null = null;
  private openCall: ToolCall | null = null;
  /** Calls not reported complete yet, in call order (rarely more than one). */
  private readonly pending: ToolCall[] = [];
  /** The indexed calls not reported yet: stream index -> call. */
  private indexed: Map<number, ToolCall> | null = null;
  /** Stream index of every indexed call ever started (to tell a late fragment from an orphan). */
  private seenIndexes: Map<number, ToolCall> | null = null;

  /**
   * Merges one part. Returns the tool calls that this part completed (in
   * call order), or null.
   *
   * @throws ChatProviderError when a fragment targets an indexed tool call
   *   that is already complete (a malformed stream).
   */
  push(part: StreamedMessagePart): ToolCall[] | null {
    switch (part.type) {
      case "text": {
        const open = this.openText;
        if (open !== null) {
          open.text += part.text;
          return null;
        }
        const done = this.close();
        const text: TextPart = { type: "text", text: part.text };
        this.openText = text;
        this.message.content.push(text);
        return done;
      }
      case "think": {
        const open = this.openThink;
        if (open !== null && !open.encrypted) {
          open.think += part.think;
          if (part.encrypted) open.encrypted = part.encrypted;
          return null;
        }
        const done = this.close();
        const think: ThinkPart = { type: "think", think: part.think, encrypted: part.encrypted ?? null };
        this.openThink = think;
        this.message.content.push(think);
        return done;
      }
      case "tool_call_part":
        return this.mergeFragment(part);
      case "function":
        return this.startCall(part);
      case "image_url":
        return this.addMedia({ type: "image_url", image_url: { url: part.image_url.url, id: part.image_url.id ?? null } });
      case "audio_url":
        return this.addMedia({ type: "audio_url", audio_url: { url: part.audio_url.url, id: part.audio_url.id ?? null } });
      case "video_url":
        return this.addMedia({ type: "video_url", video_url: { url: part.video_url.url, id: part.video_url.id ?? null } });
      default:
        throw new ChatProviderError(`malformed stream: unknown part type ${JSON.stringify((part as { type?: unknown }).type)}`);
    }
  }

  /** The stream has ended normally: every call not reported yet is complete. Returns them, in call order. */
  finish(): ToolCall[] {
    this.openText = null;
    this.openThink = null;
    this.openCall = null;
    this.indexed = null;
    return this.pending.splice(0);
  }

  /**
   * The stream broke: the calls not reported yet may lack arguments the model
   * sent, so they leave the message (never reported, never run). Returns how
   * many calls were dropped.
   */
  abandon(): number {
    const dropped = this.pending.splice(0);
    const calls = this.message.tool_calls;
    if (calls === undefined || dropped.length === 0) return dropped.length;
    const kept = calls.filter((call) => !dropped.includes(call));
    if (kept.length === 0) delete this.message.tool_calls;
    else this.message.tool_calls = kept;
    return dropped.length;
  }

  private startCall(part: StreamedToolCall): ToolCall[] | null {
    let done = this.close();
    const call: ToolCall = { type: "function", id: part.id, function: { name: part.function.name, arguments: part.function.arguments ?? null } };
    if (part.extras != null) call.extras = part.extras;
    this.openCall = call;
    (this.message.tool_calls ??= []).push(call);
    const index = part.index;
    if (index !== undefined) {
      const indexed = (this.indexed ??= new Map());
      // A new call at the index of a pending one: fragments now go to the new call, the old one cannot grow.
      const previous = indexed.get(index);
      if (previous !== undefined) done = this.report(previous, done);
      indexed.set(index, call);
      (this.seenIndexes ??= new Map()).set(index, call);
    }
    this.pending.push(call);
    return done;
  }

  private mergeFragment(part: ToolCallPart): ToolCall[] | null {
    let target = this.openCall;
    let done: ToolCall[] | null = null;
    const index = part.index;
    if (index !== undefined && this.seenIndexes !== null) {
      const byIndex = this.indexed?.get(index);
      if (byIndex === undefined) {
        const reported = this.seenIndexes.get(index);
        if (reported !== undefined) {
          this.malformed = true;
          throw new ChatProviderError(`malformed stream: arguments for tool call #${index} (${reported.id}) arrived after the call was complete`);
        }
        target = null;
      } else if (byIndex !== target) {
        // Interleaved: the open group closes, the fragment goes to its own call.
        done = this.close();
        this.openCall = target = byIndex;
      }
    }
    // An orphan fragment (no open call) closes the open group and is dropped, as in kosong.
    if (target === null) return this.close();
    const piece = part.arguments_part;
    const fn = target.function;
    if (fn.arguments === null) fn.arguments = piece ?? null;
    else if (piece != null) fn.arguments += piece;
    return done;
  }

  private addMedia(part: ContentPart): ToolCall[] | null {
    const done = this.close();
    this.message.content.push(part);
    return done;
  }

  /**
   * Closes the open group. Returns the calls that are now complete: the open
   * call when it has no stream index, and every pending indexed call whose
   * arguments are a whole JSON object.
   */
  private close(): ToolCall[] | null {
    this.openText = null;
    this.openThink = null;
    this.openCall = null;
    const pending = this.pending;
    if (pending.length === 0) return null;
    let done: ToolCall[] | null = null;
    for (let i = 0; i < pending.length; ) {
      const call = pending[i]!;
      if (this.isIndexed(call) && !isWholeJsonObject(call.function.arguments)) i++;
      else done = this.report(call, done);
    }
    return done;
  }

  private isIndexed(call: ToolCall): boolean {
    if (this.indexed === null) return false;
    for (const value of this.indexed.values()) if (value === call) return true;
    return false;
  }

  /** Marks `call` complete: out of the pending list and the index map; appended to `done`. */
  private report(call: ToolCall, done: ToolCall[] | null): ToolCall[] {
    const at = this.pending.indexOf(call);
    if (at !== -1) this.pending.splice(at, 1);
    if (this.indexed !== null) for (const [key, value] of this.indexed) if (value === call) this.indexed.delete(key);
    if (done === null) return [call];
    done.push(call);
    return done;
  }
}

/** True when `text` is a complete JSON object: arguments that no further fragment could extend validly. */
function isWholeJsonObject(text: string | null): boolean {
  if (text === null) return false;
  let end = text.length - 1;
  while (end >= 0 && text.charCodeAt(end) <= 0x20) end--;
  if (end < 0 || text.charCodeAt(end) !== 0x7d /* } */) return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
