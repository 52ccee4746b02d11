/**
 * The JSON form of soul events: kimi-cli's wire envelope
 * `{"type": "...", "payload": {...}}`, one event per line in a stream.
 * Events are envelope-shaped already, so serializing is `JSON.stringify`;
 * parsing validates the type and the payload (unknown payload keys are kept,
 * so a newer writer's extra fields survive a round trip).
 */
import { contentPartSchema, lazySchema } from "@kosong/core";
import * as z from "zod/v4";
import { SoulError } from "../errors.js";
import { approvalKinds, type SoulEvent, type SoulEventPayloads, type SoulEventType } from "./events.js";

/** A line or value that is not a soul event envelope. */
export class WireParseError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.WireParseError";

  constructor(problem: string, options: { cause?: unknown } = {}) {
    super(`invalid soul event: ${problem}`, options);
  }
}

/** One event as one JSON line (no newline). */
export function serializeEvent(event: SoulEvent): string {
  return JSON.stringify({ type: event.type, payload: event.payload });
}

/**
 * Reads an event from its JSON text or an already parsed envelope. Accepts
 * kimi-cli's older name `ApprovalRequestResolved` for `ApprovalResponse`.
 * @throws WireParseError naming what is wrong.
 */
export function parseEvent(input: string | unknown): SoulEvent {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new WireParseError(`not JSON: ${(error as Error).message}`, { cause: error });
    }
  }
  if (typeof value !== "object" || value === null) throw new WireParseError("expected an object {type, payload}");
  const { type, payload } = value as { type?: unknown; payload?: unknown };
  const name = type === "ApprovalRequestResolved" ? "ApprovalResponse" : type;
  const schemas = payloadSchemas();
  if (typeof name !== "string" || !Object.hasOwn(schemas, name)) throw new WireParseError(`unknown type ${JSON.stringify(type)}`);
  const parsed = schemas[name as SoulEventType].safeParse(payload ?? {});
  if (!parsed.success) throw new WireParseError(`${name}: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  return { type: name, payload: parsed.data } as SoulEvent;
}

/** The payload schema of each event type. */
type PayloadSchemas = { [K in SoulEventType]: z.ZodType<SoulEventPayloads[K]> };

/** The payload schemas, built on the first parse: a program that only writes events (the CLI's interactive start) never builds them. */
const payloadSchemas = /* @__PURE__ */ lazySchema(buildPayloadSchemas);

function buildPayloadSchemas(): PayloadSchemas {
  const int = z.number().int();
  const nullishString = z.string().nullish().transform((v) => v ?? null);
  const usageSchema = z.looseObject({ input_other: int, output: int, input_cache_read: int, input_cache_creation: int });
  const userInputSchema = z.union([z.string(), z.array(contentPartSchema)]);
  const partOf = <T extends string>(type: T) => contentPartSchema.refine((p) => p.type === type, `expected a ${type} part`);

  const detailsSchema = z.looseObject({
    kept: int,
    dropped: int,
    stubs: int,
    filesRecovered: z.array(z.string()),
    summarized: z.boolean(),
    notes: z.array(z.string()),
  });

  const streamedToolCall = z.looseObject({
    type: z.literal("function"),
    id: z.string(),
    function: z.looseObject({ name: z.string(), arguments: z.string().nullable() }),
    extras: z.record(z.string(), z.unknown()).nullish(),
    index: int.optional(),
  });
  const returnValueSchema = z.looseObject({
    is_error: z.boolean(),
    output: z.union([z.string(), z.array(contentPartSchema)]),
    message: z.string(),
    display: z.array(z.looseObject({ type: z.string() })),
    extras: z.record(z.string(), z.unknown()).nullish(),
  });

  return {
    TurnBegin: z.looseObject({ user_input: userInputSchema }),
    SteerInput: z.looseObject({ user_input: userInputSchema }),
    TurnEnd: z.looseObject({
      stop_reason: z.enum(["no_tool_calls", "tool_rejected", "max_steps", "aborted", "error"]),
      steps: int,
      usage: usageSchema,
      error: nullishString,
    }),
    StepBegin: z.looseObject({ n: int }),
    StepRetry: z.looseObject({ n: int, attempt: int, delay_ms: z.number(), error: z.string(), error_type: z.string() }),
    StepInterrupted: z.looseObject({ reason: z.enum(["aborted", "error"]), error: nullishString }),
    CompactionBegin: z.looseObject({ reason: z.enum(["auto", "overflow", "manual"]), strategy: z.string() }),
    CompactionEnd: z.looseObject({ tokens_before: z.number(), tokens_after: z.number(), details: detailsSchema.nullish().transform((v) => v ?? null) }),
    StatusUpdate: z.looseObject({
      context_usage: z.number().nullish().transform((v) => v ?? null),
      context_tokens: z.number(),
      max_context_tokens: z.number().nullish().transform((v) => v ?? null),
      token_usage: usageSchema.nullish().transform((v) => v ?? null),
      message_id: nullishString,
    }),
    TextPart: partOf("text"),
    ThinkPart: partOf("think"),
    ImageURLPart: partOf("image_url"),
    AudioURLPart: partOf("audio_url"),
    VideoURLPart: partOf("video_url"),
    ToolCallBegin: streamedToolCall,
    ToolCall: streamedToolCall.extend({ parsed_arguments: z.json().nullable().default(null) }),
    ToolCallPart: z.looseObject({
      type: z.literal("tool_call_part").default("tool_call_part"),
      arguments_part: z.string().nullable(),
      index: int.optional(),
    }),
    Warning: z.looseObject({ code: z.string(), message: z.string() }),
    ToolResult: z.looseObject({ tool_call_id: z.string(), return_value: returnValueSchema }),
    ApprovalRequest: z.looseObject({ id: z.string(), tool_call_id: z.string(), sender: z.string(), action: z.string(), description: z.string(), scope: z.string().optional(), once: z.boolean().optional() }),
    ApprovalResponse: z.looseObject({ request_id: z.string(), response: z.enum(approvalKinds), feedback: z.string().default("") }),
    CheckpointCreated: z.looseObject({ id: int, label: nullishString }),
    Reverted: z.looseObject({
      checkpoint_id: int.nullable(),
      reason: z.enum(["dmail", "rewrite"]),
      files: z
        .looseObject({
          restored: z.array(z.string()),
          skipped: z.array(z.looseObject({ path: z.string(), reason: z.string() })),
          conflicts: z.array(z.string()),
          notice: z.string().optional(),
        })
        .optional(),
    }),
    SubagentEvent: z.looseObject({
      parent_tool_call_id: z.string(),
      agent_id: z.string(),
      subagent_type: z.string(),
      // The nested event is parsed as any other (a grandchild's nests again).
      event: z.unknown().transform((event, ctx) => {
        try {
          return parseEvent(event);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
          return z.NEVER;
        }
      }),
    }),
  } as PayloadSchemas;
}
