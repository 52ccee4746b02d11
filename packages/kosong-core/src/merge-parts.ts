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
 *   `index`, which must still be the open one;
 * - any other part closes the open group and starts a new one.
 *
 * The merger never mutates a part it receives: a part that starts a group is
 * copied once, later parts are only read. A {@link StreamedToolCall}'s
 * `index` is never stored in the message.
 */
import { ChatProviderError } from "./errors.js";
import type { ContentPart, Message, StreamedMessagePart, TextPart, ThinkPart, ToolCall, ToolCallPart } from "./message.js";

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
  private openIndexed = false;
  private indexed: Map<number, ToolCall> | null = null;

  /**
   * Merges one part. Returns the tool call that this part completed (the open
   * call, when the part does not merge into it), or null.
   *
   * @throws ChatProviderError when a fragment targets an indexed tool call
   *   that is already complete (a malformed stream).
   */
  push(part: StreamedMessagePart): ToolCall | null {
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
      case "function": {
        const done = this.close();
        const call: ToolCall = {
          type: "function",
          id: part.id,
          function: { name: part.function.name, arguments: part.function.arguments ?? null },
        };
        if (part.extras != null) call.extras = part.extras;
        this.openCall = call;
        (this.message.tool_calls ??= []).push(call);
        if (part.index !== undefined) {
          (this.indexed ??= new Map()).set(part.index, call);
          this.openIndexed = true;
        }
        return done;
      }
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

  /** Closes the open group (the stream has ended). Returns the tool call this completed, or null. */
  finish(): ToolCall | null {
    return this.close();
  }

  private mergeFragment(part: ToolCallPart): ToolCall | null {
    const open = this.openCall;
    let target = open;
    if (part.index !== undefined) {
      const byIndex = this.indexed?.get(part.index);
      if (byIndex !== undefined) {
        if (byIndex !== open) {
          this.malformed = true;
          throw new ChatProviderError(
            `malformed stream: arguments for tool call #${part.index} (${byIndex.id}) arrived after the call was complete`,
          );
        }
      } else if (this.openIndexed) {
        target = null;
      }
    }
    // An orphan fragment (no open call) closes the open group and is dropped, as in kosong.
    if (target === null) return this.close();
    const piece = part.arguments_part;
    const fn = target.function;
    if (fn.arguments === null) fn.arguments = piece ?? null;
    else if (piece != null) fn.arguments += piece;
    return null;
  }

  private addMedia(part: ContentPart): ToolCall | null {
    const done = this.close();
    this.message.content.push(part);
    return done;
  }

  private close(): ToolCall | null {
    const call = this.openCall;
    this.openText = null;
    this.openThink = null;
    this.openCall = null;
    this.openIndexed = false;
    return call;
  }
}
