/**
 * Zod schemas of the message model, for users who validate their own data
 * (request bodies, files, queue payloads) with zod.
 *
 * Each schema is the matching reader of the JSON form ({@link parseMessage},
 * {@link parseContentPart}, {@link parseToolCall}) wrapped for zod: it accepts
 * and rejects exactly the same values and yields the same normalised value
 * (a string `content` becomes one text part, missing or null optional fields
 * are dropped, a think part's missing `encrypted` and a media part's missing
 * `id` become null, unknown extra keys are stripped). A rejection is one zod
 * issue whose `path` and message are those of the {@link MessageParseError}.
 * The schemas take parsed values: a JSON string is rejected (parse it first,
 * or call `parseMessage` on it).
 */
import * as z from "zod/v4";
import { MessageParseError } from "./errors.js";
import type { ContentPart, Message, ToolCall } from "./message.js";
import { parseContentPart, parseMessage, parseToolCall } from "./message-json.js";

/** `content[1].type` -> `["content", 1, "type"]`. */
function pathSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) segments.push(match[1] !== undefined ? Number(match[1]) : match[2]!);
  return segments;
}

function readerSchema<T>(read: (value: unknown) => T, what: string): z.ZodType<T> {
  return z.unknown().transform((value, ctx): T => {
    if (typeof value === "string") {
      ctx.issues.push({ code: "custom", message: `expected ${what} object, got a string`, input: value });
      return z.NEVER;
    }
    try {
      return read(value);
    } catch (error) {
      if (!MessageParseError.isInstance(error)) throw error;
      ctx.issues.push({ code: "custom", message: error.message, path: pathSegments(error.path), input: value });
      return z.NEVER;
    }
  });
}

/** One content part, discriminated by `type` (an unknown type is rejected). */
export const contentPartSchema: z.ZodType<ContentPart> = readerSchema(parseContentPart, "a content part");

/** A tool call; a missing or null `arguments` reads as null, a missing `type` as `"function"`. */
export const toolCallSchema: z.ZodType<ToolCall> = readerSchema(parseToolCall, "a tool call");

/** A message in kosong's JSON form (or already in memory), validated and normalised to a {@link Message}. */
export const messageSchema: z.ZodType<Message> = readerSchema(parseMessage, "a message");
