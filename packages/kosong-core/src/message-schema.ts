/**
 * Zod schemas of the message model, for users who validate their own data
 * (request bodies, files, queue payloads) with zod.
 *
 * They accept exactly what {@link parseMessage} accepts and produce the same
 * normalised value: a string `content` becomes one text part, missing or null
 * optional fields are dropped, a think part's missing `encrypted` and a media
 * part's missing `id` become null, unknown extra keys are stripped.
 * `parseMessage` stays the fast path used by the library itself; these
 * schemas exist for composition with other zod schemas.
 */
import { z } from "zod";
import type { ContentPart, JsonValue, Message, MediaURL, ToolCall } from "./message.js";

const mediaURLSchema = z
  .object({ url: z.string(), id: z.string().nullish() })
  .transform((m): MediaURL => ({ url: m.url, id: m.id ?? null }));

const textPartSchema = z.object({ type: z.literal("text"), text: z.string() });

const thinkPartSchema = z
  .object({ type: z.literal("think"), think: z.string(), encrypted: z.string().nullish() })
  .transform((p) => ({ type: "think" as const, think: p.think, encrypted: p.encrypted ?? null }));

const imageURLPartSchema = z.object({ type: z.literal("image_url"), image_url: mediaURLSchema });
const audioURLPartSchema = z.object({ type: z.literal("audio_url"), audio_url: mediaURLSchema });
const videoURLPartSchema = z.object({ type: z.literal("video_url"), video_url: mediaURLSchema });

/** One content part, discriminated by `type` (an unknown type is rejected). */
export const contentPartSchema: z.ZodType<ContentPart> = z.discriminatedUnion("type", [
  textPartSchema,
  thinkPartSchema,
  imageURLPartSchema,
  audioURLPartSchema,
  videoURLPartSchema,
]);

/** A tool call; a missing or null `arguments` reads as null, a missing `type` as `"function"`. */
export const toolCallSchema: z.ZodType<ToolCall> = z
  .object({
    type: z.literal("function").nullish(),
    id: z.string(),
    function: z.object({ name: z.string(), arguments: z.string().nullish() }),
    extras: z.record(z.string(), z.unknown()).nullish(),
  })
  .transform((c): ToolCall => {
    const call: ToolCall = { type: "function", id: c.id, function: { name: c.function.name, arguments: c.function.arguments ?? null } };
    if (c.extras != null) call.extras = c.extras as Record<string, JsonValue>;
    return call;
  });

/**
 * A message in kosong's JSON form (or already in memory), validated and
 * normalised to a {@link Message}. Accepts and rejects the same inputs as
 * `parseMessage` does for parsed values.
 */
export const messageSchema: z.ZodType<Message> = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    name: z.string().nullish(),
    content: z.preprocess(
      (value) => (typeof value === "string" ? [{ type: "text", text: value }] : value),
      z.array(contentPartSchema).nullish(),
    ),
    tool_calls: z.array(toolCallSchema).nullish(),
    tool_call_id: z.string().nullish(),
    partial: z.boolean().nullish(),
  })
  .transform((m): Message => {
    const message: Message = { role: m.role, content: m.content ?? [] };
    if (m.name != null) message.name = m.name;
    if (m.tool_calls != null) message.tool_calls = m.tool_calls;
    if (m.tool_call_id != null) message.tool_call_id = m.tool_call_id;
    if (m.partial != null) message.partial = m.partial;
    return message;
  });
