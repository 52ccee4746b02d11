/**
 * The tool result of a call that ran past its time limit
 * (`SoulConfig.toolTimeouts`).
 */
import { ToolError } from "@kosong/core";

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

/**
 * A tool call stopped because it ran longer than its time limit: the tool's
 * signal was aborted and the model reads this error result; the turn goes
 * on.
 */
export class ToolTimeoutError extends ToolError {
  static override readonly brand: string = "@kosong/soul.tool-error.ToolTimeoutError";

  /** The tool's name. */
  readonly toolName: string;
  /** The limit it ran past, in ms. */
  readonly timeoutMs: number;

  constructor(toolName: string, timeoutMs: number) {
    const message = `The tool call was stopped: \`${toolName}\` ran longer than its time limit of ${seconds(timeoutMs)}. If the work needs longer, split it into smaller steps or run it in the background.`;
    super({ message, brief: `Timed out after ${seconds(timeoutMs)}` });
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
  }
}
