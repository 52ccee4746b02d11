/** `runSubagent` called from a tool that does not run in a soul's turn. */
import { SoulError } from "../errors.js";

/** Thrown by `runSubagent` when the tool context has no running turn (the tool was called outside a soul). */
export class SubagentOutsideSoulError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.SubagentOutsideSoulError";

  constructor() {
    super("runSubagent needs the ToolContext of a tool running in a soul's turn (context.turn and context.session are absent).");
  }
}
