/**
 * Callable tools: a definition the model sees plus the code that runs when
 * the model calls it. `defineTool` builds one from a zod schema, which both
 * produces the JSON Schema for the model and validates the arguments.
 */
import { z } from "zod";
import type { JsonSchema, Tool } from "./chat-provider.js";
import { thrownMessage } from "./thrown-message.js";
import { ToolCancelledError, ToolError, ToolRuntimeError, ToolValidateError } from "./tool-errors.js";
import { isToolReturnValue, toolOk, type ToolReturnValue } from "./tool-return-value.js";

/** What a running tool gets besides its arguments. */
export interface ToolContext {
  /** The id of the tool call being answered. */
  toolCallId: string;
  /** Aborted when the call is cancelled (the step was aborted): stop work and return. */
  signal: AbortSignal;
}

/** A tool that can be called: its definition and an implementation that never throws. */
export interface CallableTool {
  readonly name: string;
  /** The definition sent to the model. */
  readonly definition: Tool;
  /**
   * Runs the tool with already JSON-decoded arguments. Never rejects:
   * invalid arguments and thrown errors become error results.
   */
  call(args: unknown, context: ToolContext): Promise<ToolReturnValue>;
}

/** The specification of a tool built by {@link defineTool}. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  /** The parameters; the model sees `z.toJSONSchema(parameters)`, the arguments are validated with it. */
  parameters: S;
  /**
   * The implementation, called with validated (and zod-transformed)
   * parameters. Return a {@link ToolReturnValue} (see `toolOk`/`toolError`)
   * or a string (a successful text output). A thrown error becomes a
   * `ToolRuntimeError` result (a `ToolCancelledError` result once the
   * call's signal has aborted).
   */
  execute(params: z.output<S>, context: ToolContext): ToolReturnValue | string | Promise<ToolReturnValue | string>;
}

/** A tool built by {@link defineTool}; also exposes its zod schema. */
export interface DefinedTool<S extends z.ZodType> extends CallableTool {
  readonly parameters: S;
}

/**
 * Builds a callable tool from a zod schema. The JSON Schema for the model is
 * `z.toJSONSchema(parameters)` of the input side (defaults make a field
 * optional), without the `$schema` and `title` keys.
 *
 * Arguments that fail validation are retried once with inner JSON strings
 * decoded (some models double-encode nested arrays and objects, e.g.
 * `{"todos": "[...]"}`), as kosong does; if they still fail, the result is a
 * `ToolValidateError` carrying zod's description of the problem.
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): DefinedTool<S> {
  const { name, description, parameters } = spec;
  const definition: Tool = { name, description, parameters: toParametersSchema(parameters) };
  return {
    name,
    definition,
    parameters,
    async call(args: unknown, context: ToolContext): Promise<ToolReturnValue> {
      let parsed = parameters.safeParse(args);
      if (!parsed.success) {
        const decoded = decodeNestedJson(args);
        if (decoded !== args) {
          const retry = parameters.safeParse(decoded);
          if (retry.success) parsed = retry;
        }
        if (!parsed.success) return new ToolValidateError(z.prettifyError(parsed.error));
      }
      let returned: unknown;
      try {
        returned = await spec.execute(parsed.data, context);
      } catch (error) {
        return context.signal.aborted ? new ToolCancelledError() : new ToolRuntimeError(thrownMessage(error));
      }
      if (typeof returned === "string") return toolOk(returned);
      if (isToolReturnValue(returned)) return returned;
      return new ToolError({ message: `Invalid return type: ${typeName(returned)}`, brief: "Invalid return type" });
    },
  };
}

function toParametersSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  delete json.title;
  return json as JsonSchema;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Recursively replaces strings that decode to a JSON object or array with
 * the decoded value. Returns `value` itself when nothing changed.
 */
function decodeNestedJson(value: unknown): unknown {
  if (typeof value === "string") {
    const first = value.trimStart()[0];
    if (first !== "{" && first !== "[") return value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return value;
    }
    return typeof parsed === "object" && parsed !== null ? decodeNestedJson(parsed) : value;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const decoded = decodeNestedJson(item);
      if (decoded !== item) (out ??= value.slice())[i] = decoded;
    }
    return out ?? value;
  }
  if (typeof value === "object" && value !== null) {
    let out: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const decoded = decodeNestedJson(item);
      if (decoded !== item) (out ??= { ...value })[key] = decoded;
    }
    return out ?? value;
  }
  return value;
}
