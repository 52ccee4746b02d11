import type { FinishReason, StreamedMessage } from "../chat-provider.js";
import type { StreamedMessagePart, StreamedToolCall, ToolCallPart } from "../message.js";
import type { TokenUsage } from "../token-usage.js";
import type { ChaosCorruption, ChaosCorruptionFault, ChaosResetFault } from "./chaos-fault.js";

type ArgumentsPart = StreamedToolCall | ToolCallPart;

function argumentsOf(part: ArgumentsPart): string | null {
  return part.type === "function" ? part.function.arguments : part.arguments_part;
}

function withArguments(part: ArgumentsPart, args: string): ArgumentsPart {
  return part.type === "function"
    ? { ...part, function: { name: part.function.name, arguments: args } }
    : { ...part, arguments_part: args };
}

/** Breaks JSON text so that it no longer parses (its last non-blank character goes, or gets a stray quote before it). */
export function corruptArguments(args: string, corruption: ChaosCorruption): string {
  return corruption === "truncate" ? args.replace(/\S(\s*)$/, "$1") : args.replace(/(\S\s*)$/, '"$1');
}

/**
 * The wrapped provider's stream with a stream fault applied: a connection
 * reset after `afterParts` parts, or the arguments of the first tool call
 * (with any) corrupted in their last fragment. `id` and `usage` are the
 * wrapped stream's; a reset stream has no finish reason.
 */
export class ChaosStreamedMessage implements StreamedMessage {
  private failed = false;

  constructor(
    private readonly inner: StreamedMessage,
    private readonly fault: ChaosResetFault | ChaosCorruptionFault,
  ) {}

  get id(): string | null {
    return this.inner.id;
  }

  get usage(): TokenUsage | null {
    return this.inner.usage;
  }

  get finishReason(): FinishReason | null {
    return this.failed ? null : (this.inner.finishReason ?? null);
  }

  get rawFinishReason(): string | null {
    return this.failed ? null : (this.inner.rawFinishReason ?? null);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamedMessagePart> {
    return this.fault.kind === "connection_reset" ? this.reset(this.fault) : this.corrupt(this.fault);
  }

  private async *reset(fault: ChaosResetFault): AsyncGenerator<StreamedMessagePart> {
    let delivered = 0;
    if (fault.afterParts > 0) {
      for await (const part of this.inner) {
        yield part;
        if (++delivered >= fault.afterParts) break;
      }
    }
    fault.afterParts = delivered;
    this.failed = true;
    throw fault.error;
  }

  /**
   * Holds back the latest non-blank argument fragment of the target call
   * until a part that is not one of its fragments arrives (or the stream
   * ends), so that the corruption lands on the call's last fragment. Blank
   * fragments of the target are folded into the held one.
   */
  private async *corrupt(fault: ChaosCorruptionFault): AsyncGenerator<StreamedMessagePart> {
    let target: StreamedToolCall | null = null;
    let targetIsLatest = false;
    let held: ArgumentsPart | null = null;
    let done = false;
    const flush = (): ArgumentsPart => {
      const part = held!;
      held = null;
      done = true;
      fault.toolCallId = target!.id;
      return withArguments(part, corruptArguments(argumentsOf(part)!, fault.corruption));
    };
    try {
      for await (const part of this.inner) {
        if (done) {
          yield part;
          continue;
        }
        const ofTarget =
          part.type === "tool_call_part" &&
          target !== null &&
          (part.index === undefined ? targetIsLatest : part.index === target.index);
        if (ofTarget) {
          const args = argumentsOf(part);
          if (held && !(args && /\S/.test(args))) {
            held = withArguments(held, argumentsOf(held)! + (args ?? ""));
            continue;
          }
          if (args && /\S/.test(args)) {
            if (held) yield held;
            held = part;
            continue;
          }
          yield part;
          continue;
        }
        if (held) yield flush();
        if (done) {
          yield part;
          continue;
        }
        if (part.type === "function") {
          target = part;
          targetIsLatest = true;
          const args = part.function.arguments;
          if (args && /\S/.test(args)) {
            held = part;
            continue;
          }
        }
        yield part;
      }
    } catch (error) {
      if (held) yield flush();
      throw error;
    }
    if (held) yield flush();
  }
}
