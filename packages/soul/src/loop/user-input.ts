/**
 * What the user gives a turn, as the message appended to the context.
 */
import type { Message } from "@kosong/core";
import { isEmptyMessage } from "../conversation/index.js";
import { EmptyInputError } from "../errors.js";
import type { UserInput } from "../events/events.js";

/**
 * The user message of `input`.
 * @throws EmptyInputError (saying it could not `what`) when it has nothing in it: no part, or only blank text.
 */
export function userInputMessage(input: UserInput, what: string): Message {
  const message: Message = { role: "user", content: typeof input === "string" ? [{ type: "text", text: input }] : input };
  if (isEmptyMessage(message)) throw new EmptyInputError(what);
  return message;
}
