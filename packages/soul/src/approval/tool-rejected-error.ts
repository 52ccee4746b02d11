/**
 * The tool result of a call the user rejected (kimi-cli's `ToolRejectedError`).
 */
import { ToolError } from "@kosong/core";

/**
 * A rejected tool call. Without feedback it ends the turn (`tool_rejected`);
 * with feedback the model reads the feedback in this error result and the
 * turn goes on.
 */
export class ToolRejectedError extends ToolError {
  static override readonly brand: string = "@kosong/soul.tool-error.ToolRejectedError";

  /** What the user said with the rejection ("" when nothing). */
  readonly feedback: string;

  constructor(feedback = "") {
    const message =
      feedback === ""
        ? "The tool call is rejected by the user. Stop what you are doing and wait for the user to tell you how to proceed."
        : `The tool call is rejected by the user, who says: ${feedback}`;
    super({ message, brief: "Rejected by user" });
    this.feedback = feedback;
  }
}
