/**
 * The keys of a running operation, watched on and off: an approval's
 * question stops the watch while the answer is read, and starts it again.
 */
import type { LineInput, TurnKeys } from "./terminal-input.js";

/** A watch of the keys typed while an operation runs. */
export class TurnKeyWatch {
  #stop: (() => void) | null = null;

  /** `keys` gives what the keys do (made when the watch starts). */
  constructor(
    private readonly input: LineInput,
    private readonly keys: () => TurnKeys,
  ) {}

  /** Starts watching (again). */
  start(): void {
    this.#stop = this.input.watchTurn(this.keys());
  }

  /** Stops watching (nothing when not watching). */
  stop(): void {
    this.#stop?.();
    this.#stop = null;
  }
}
