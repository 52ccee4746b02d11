/**
 * The JSON-RPC 2.0 side of kimi-cli's wire protocol: the error codes, the
 * methods a client may call, and the shapes of their parameters.
 */
import { contentPartSchema } from "@kosong/core";
import * as z from "zod/v4";

/** The wire protocol version this server speaks (kimi-cli's, with its optional features off). */
export const WIRE_PROTOCOL_VERSION = "1.9";

/** kimi-cli's JSON-RPC error codes. */
export const WireErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The server cannot do this now (a turn runs, or none does). */
  invalidState: -32000,
  llmNotSet: -32001,
  llmNotSupported: -32002,
  /** The chat provider failed (retries exhausted or not retryable). */
  chatProviderError: -32003,
} as const;

/** A JSON-RPC id (kimi-cli's clients use strings). */
export type RpcId = string | number;

/** One incoming message, as far as the envelope goes. */
export const rpcMessageSchema = z.looseObject({
  jsonrpc: z.literal("2.0").optional(),
  id: z.union([z.string(), z.number()]).nullish(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});

const userInputSchema = z.union([z.string(), z.array(contentPartSchema)]);

/** Parameters of each method a client may call. */
export const paramSchemas = {
  initialize: z.looseObject({
    protocol_version: z.string(),
    client: z.looseObject({ name: z.string(), version: z.string().nullish() }).nullish(),
    external_tools: z.array(z.looseObject({ name: z.string() })).nullish(),
    capabilities: z.looseObject({}).nullish(),
  }),
  prompt: z.looseObject({ user_input: userInputSchema }),
  steer: z.looseObject({ user_input: userInputSchema }),
  replay: z.unknown(),
  cancel: z.unknown(),
  set_plan_mode: z.looseObject({ enabled: z.boolean() }),
} as const;

/** The methods a client may call. */
export type WireMethod = keyof typeof paramSchemas;

/** The answer to an `ApprovalRequest` request. */
export const approvalResultSchema = z.looseObject({
  request_id: z.string(),
  response: z.enum(["approve", "approve_for_session", "reject"]),
  feedback: z.string().nullish(),
});
