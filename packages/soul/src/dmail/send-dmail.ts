/**
 * The `SendDMail` tool (kimi-cli's): the model sends a message back to one of
 * its checkpoints. Add it to an agent's toolset to enable D-Mail; the soul
 * then shows the model its checkpoints (`<system>CHECKPOINT n</system>`).
 * Its description says files are not reverted; with a file journal on the
 * context the soul shows the model the one that says they are (see
 * `send-dmail-description.ts`).
 */
import { defineTool, toolError, toolOk } from "@kosong/core";
import * as z from "zod/v4";
import "../session/tool-context.js";
import { DenwaRenjiError } from "./denwa-renji.js";
import { sendDMailDescription } from "./send-dmail-description.js";

/** The tool's name, by which the soul recognises that D-Mail is enabled. */
export const SEND_DMAIL_NAME = "SendDMail";

const description = sendDMailDescription(false);
const messageDescription = "The message to your past self.";
const checkpointDescription = "The checkpoint to send it to.";

/**
 * Sends a D-Mail. When it is accepted the result is a success saying it was
 * sent (what the host sees in the `ToolResult` event), and the soul delivers
 * it at the end of the step by reverting the context, so the model never
 * reads that result unless a rejected call of the same step cancelled the
 * delivery, which the result tells it too. An unknown checkpoint or a second
 * D-Mail is an error result. The parameters' JSON Schema is written out, as
 * Recall's is (zod's conversion of the same schema, checked by a test, costs
 * each start a few milliseconds).
 */
export const SendDMail = defineTool({
  name: SEND_DMAIL_NAME,
  description,
  parameters: z.object({
    message: z.string().describe(messageDescription),
    checkpoint_id: z.int().min(0).describe(checkpointDescription),
  }),
  jsonSchema: {
    type: "object",
    properties: { message: { type: "string", description: messageDescription }, checkpoint_id: { type: "integer", minimum: 0, description: checkpointDescription } },
    required: ["message", "checkpoint_id"],
  },
  execute({ message, checkpoint_id }, { session }) {
    if (session === undefined) return toolError({ message: "D-Mail only works inside a soul's session.", brief: "D-Mail unavailable" });
    try {
      session.denwaRenji.sendDMail({ message, checkpoint_id });
    } catch (error) {
      if (!DenwaRenjiError.isInstance(error)) throw error;
      return toolError({ message: `The D-Mail was not sent: ${error.message}`, brief: "D-Mail not sent" });
    }
    return toolOk({
      output: "",
      message: `D-Mail sent to checkpoint ${checkpoint_id}: it is delivered when this step ends, unless another tool call of this step is rejected. If you read this, that happened and it was not delivered: go on from here.`,
      brief: `D-Mail sent to checkpoint ${checkpoint_id}`,
    });
  },
});
