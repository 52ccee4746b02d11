/**
 * Callable tools: a definition the model sees plus the code that runs when
 * the model calls it. `defineTool` builds one from a zod schema, which both
 * produces the JSON Schema for the model and validates the arguments.
 */
import { z } from "zod";
import type { JsonSchema, Tool } from "./chat-provider.js";
import { KosongError } from "./errors.js";
import { thrownMessage } from "./thrown-message.js";
import type { ToolContext } from "./tool-context.js";
import { ToolCancelledError, ToolError, ToolRuntimeError, ToolValidateError } from "./tool-errors.js";
import { isToolReturnValue, toolOk, type ToolReturnValue } from "./tool-return-value.js";

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

/**
 * The specification of a tool built by {@link defineTool}. `S` is a zod
 * schema whose input is an object (`z.object({...})`, `z.record(...)`, or
 * one of them with refinements, defaults or transforms): the model calls a
 * tool with one object of named arguments.
 */
export interface ToolSpec<S extends z.ZodType<unknown, Record<string, unknown>>> {
  name: string;
  description: string;
  /**
   * The parameters; the model sees `z.toJSONSchema(parameters)`, the
   * arguments are validated with it. Its JSON Schema must be `type: "object"`.
   */
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
export interface DefinedTool<S extends z.ZodType<unknown, Record<string, unknown>>> extends CallableTool {
  readonly parameters: S;
}

/**
 * Builds a callable tool from a zod schema. The JSON Schema for the model is
 * `z.toJSONSchema(parameters)` of the input side (defaults make a field
 * optional), without the `$schema` and `title` keys and without the safe
 * integer bounds zod puts on every integer (`{"type": "integer"}`, as kosong
 * sends it; bounds set by the schema stay). A schema with no JSON
 * Schema form (`z.date()`, `z.bigint()`, ...), or whose JSON Schema is not
 * `type: "object"` (which every provider rejects), is a
 * {@link KosongError} here, naming the tool.
 *
 * Arguments that fail validation are retried with the failing values that
 * are JSON strings of an object or array decoded (some models double-encode
 * nested arrays and objects, e.g. `{"todos": "[...]"}`; kosong repairs them
 * too); if they still fail, the result is a `ToolValidateError` carrying
 * zod's description of the original problem.
 */
export function defineTool<S extends z.ZodType<unknown, Record<string, unknown>>>(spec: ToolSpec<S>): DefinedTool<S> {
  const { name, description, parameters } = spec;
  const definition: Tool = { name, description, parameters: toParametersSchema(name, parameters) };
  return {
    name,
    definition,
    parameters,
    async call(args: unknown, context: ToolContext): Promise<ToolReturnValue> {
      const first = parameters.safeParse(args);
      let parsed = first;
      let repaired: unknown = args;
      for (let round = 0; !parsed.success && round < maxDecodeRounds; round++) {
        repaired = decodeAtIssues(repaired, parsed.error.issues);
        if (repaired === undefined) break;
        parsed = parameters.safeParse(repaired);
      }
      if (!parsed.success) return new ToolValidateError(z.prettifyError(first.error!));
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

const maxDecodeRounds = 4;

function toParametersSchema(name: string, schema: z.ZodType): JsonSchema {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: "input", override: dropSafeIntegerBounds }) as Record<string, unknown>;
  } catch (error) {
    throw new KosongError(`Tool \`${name}\`: its parameters have no JSON Schema for the model: ${thrownMessage(error)}`, { cause: error });
  }
  delete json.$schema;
  delete json.title;
  if (json.type !== "object") {
    throw new KosongError(
      `Tool \`${name}\`: its parameters must be a JSON Schema of type "object" (one object of named arguments, e.g. z.object({...})), got ${JSON.stringify(json).slice(0, 200)}`,
    );
  }
  return json as JsonSchema;
}

/**
 * Removes the bounds zod gives every integer (`z.int()`, `.int()`): the safe
 * integer range, which says nothing to a model. A bound set to anything else
 * (`.min(0)`, `z.int32()`) stays.
 */
function dropSafeIntegerBounds(ctx: { jsonSchema: { type?: unknown; minimum?: unknown; maximum?: unknown } }): void {
  const json = ctx.jsonSchema;
  if (json.type !== "integer") return;
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Where validation failed on a string that decodes to a JSON object or array,
 * puts the decoded value instead (copying along the path, never mutating
 * `args`). Returns undefined when no failing value could be decoded.
 */
function decodeAtIssues(args: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  let out = args;
  let changed = false;
  for (const issue of issues) {
    const value = valueAt(out, issue.path);
    if (typeof value !== "string") continue;
    const first = value.trimStart()[0];
    if (first !== "{" && first !== "[") continue;
    let decoded: unknown;
    try {
      decoded = JSON.parse(value);
    } catch {
      continue;
    }
    if (typeof decoded !== "object" || decoded === null) continue;
    out = replaceAt(out, issue.path, 0, decoded);
    changed = true;
  }
  return changed ? out : undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function replaceAt(node: unknown, path: readonly PropertyKey[], depth: number, value: unknown): unknown {
  if (depth === path.length) return value;
  const key = path[depth]!;
  const copy = (Array.isArray(node) ? [...(node as unknown[])] : { ...(node as object) }) as Record<PropertyKey, unknown>;
  copy[key] = replaceAt(copy[key], path, depth + 1, value);
  return copy;
}
