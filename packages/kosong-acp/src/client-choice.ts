/**
 * A choice asked of the editor's user. ACP has no question request, but
 * `session/request_permission` carries options and the editor shows them
 * as buttons beside the tool call: each option of the choice becomes one
 * (kind `allow_once`), the question the tool call's title, the options'
 * descriptions its content.
 */
import type { AgentContext, RequestPermissionRequest } from "@agentclientprotocol/sdk";

/** One option of a {@link ClientChoice}. */
export interface ClientChoiceOption {
  /** The option, shown on its button. */
  label: string;
  /** What choosing it means, shown with the question. */
  description?: string;
}

/** A single choice asked of the editor's user. */
export interface ClientChoice {
  /** The tool call that asks: the editor shows the request with it. */
  toolCallId: string;
  /** The question (the tool call's title while it is asked). */
  title: string;
  options: readonly ClientChoiceOption[];
  /** Aborting withdraws the request (the choice resolves null). */
  signal?: AbortSignal;
}

/**
 * Asks `choice` in session `sessionId`; resolves to the index of the option
 * chosen, or null when the user cancelled, the client answered with an
 * error or an unknown option, or `signal` aborted.
 */
export async function askChoice(client: AgentContext, sessionId: string, choice: ClientChoice): Promise<number | null> {
  if (choice.signal?.aborted) return null;
  const described = choice.options.filter((option) => option.description);
  const request: RequestPermissionRequest = {
    sessionId,
    toolCall: {
      toolCallId: choice.toolCallId,
      title: choice.title,
      kind: "other",
      status: "pending",
      ...(described.length > 0 && { content: [{ type: "content", content: { type: "text", text: described.map((option) => `- ${option.label}: ${option.description}`).join("\n") } }] }),
    },
    options: choice.options.map((option, i) => ({ optionId: `option-${i}`, name: option.label, kind: "allow_once" })),
  };
  try {
    const response = await client.request("session/request_permission", request, { ...(choice.signal && { cancellationSignal: choice.signal, stopWaitingOnCancel: true }) });
    if (response.outcome.outcome !== "selected") return null;
    const index = Number(/^option-(\d+)$/.exec(response.outcome.optionId)?.[1] ?? Number.NaN);
    return Number.isInteger(index) && index < choice.options.length ? index : null;
  } catch {
    return null;
  }
}
