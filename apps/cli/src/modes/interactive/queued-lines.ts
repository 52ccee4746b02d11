/**
 * Lines entered while an operation runs, waiting to reach the model: each
 * is handed to `steer` once the step's tools run (so the model reads it
 * after their results), in the order typed; Esc takes the last one back.
 * What is still queued when the operation ends is sent next by the loop.
 */
import type { SoulEvent } from "@kosong/soul";

/** The queue of one operation. */
export class QueuedLines {
  readonly #lines: string[] = [];
  #toolsRunning = false;

  /** `steer` hands a line to the running turn; false when it cannot take one now. */
  constructor(private readonly steer: (text: string) => boolean) {}

  /** Queues `text` (then {@link deliver} hands it on when it can). */
  push(text: string): void {
    this.#lines.push(text);
  }

  /** Takes the last queued line back (undefined when none is queued). */
  takeBack(): string | undefined {
    return this.#lines.pop();
  }

  /** Follows the operation's events (tools run from a `ToolCall` to the next step or the turn's end) and delivers. */
  observe(event: SoulEvent): void {
    if (event.type === "ToolCall") this.#toolsRunning = true;
    else if (event.type === "StepBegin" || event.type === "TurnEnd") this.#toolsRunning = false;
    this.deliver();
  }

  /** Hands queued lines on, oldest first, while tools run and the turn takes them. */
  deliver(): void {
    while (this.#toolsRunning && this.#lines.length > 0 && this.steer(this.#lines[0]!)) this.#lines.shift();
  }

  /** Empties the queue: the lines never delivered. */
  drain(): string[] {
    return this.#lines.splice(0);
  }
}
