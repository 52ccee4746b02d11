/**
 * Callable tools: a definition the model sees plus the code that runs when
 * the model calls it. `defineTool` builds one from a schema of any Standard
 * Schema library (zod 3.25+ and 4, valibot, arktype, ...), which validates the
 * arguments and, where the library provides it, produces the JSON Schema for
 * the model.
 */
import * as z from "zod/v4";
import type { JsonSchema, Tool } from "./chat-provider.js";
import { KosongError } from "./errors.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { zod3JsonSchema } from "./zod3-json-schema.js";
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
 * The parameters schema of a tool: any Standard Schema whose input is an
 * object of named arguments (`z.object({...})`, `v.object({...})`,
 * `type({...})`, with refinements, defaults or transforms).
 */
export type ToolParameters = StandardSchemaV1<Record<string, unknown>, unknown>;

/** The validated arguments a tool's `execute` gets: the schema's output. */
export type ToolArguments<S extends ToolParameters> = StandardSchemaV1.InferOutput<S>;

/** The specification of a tool built by {@link defineTool}. */
export interface ToolSpec<S extends ToolParameters> {
  name: string;
  description: string;
  /**
   * The parameters, from any Standard Schema library; the arguments are
   * validated with it. Its JSON Schema (see {@link defineTool}) must be
   * `type: "object"`.
   */
  parameters: S;
  /**
   * The JSON Schema the model sees, for a library that cannot produce one
   * (valibot without `@valibot/to-json-schema`). Default: the library's
   * (zod 3's classic API through zod-to-json-schema).
   */
  jsonSchema?: JsonSchema;
  /**
   * The implementation, called with validated (and transformed)
   * parameters. Return a {@link ToolReturnValue} (see `toolOk`/`toolError`)
   * or a string (a successful text output). A thrown error becomes a
   * `ToolRuntimeError` result (a `ToolCancelledError` result once the
   * call's signal has aborted).
   */
  execute(params: ToolArguments<S>, context: ToolContext): ToolReturnValue | string | Promise<ToolReturnValue | string>;
}

/** A tool built by {@link defineTool}; also exposes its schema. */
export interface DefinedTool<S extends ToolParameters> extends CallableTool {
  readonly parameters: S;
}

/**
 * Builds a callable tool from a Standard Schema. The JSON Schema for the
 * model is, in this order: `spec.jsonSchema`; the library's Standard JSON
 * Schema of the input side (`~standard.jsonSchema.input`: zod 4.2+, arktype,
 * valibot's `toStandardJsonSchema`; with zod, defaults make a field
 * optional); `z.toJSONSchema` for older zod 4 and zod 3.25+'s `zod/v4`;
 * zod-to-json-schema for zod 3's classic API (`import { z } from "zod"` on
 * zod 3); a `toJsonSchema()` method (older arktype). The `$schema` and `title` keys are dropped, and so are
 * the safe-integer bounds zod puts on every integer (`{"type": "integer"}`,
 * as kosong sends it; bounds set by the schema stay). A schema with no JSON
 * Schema form, or whose JSON Schema is not `type: "object"` (which every
 * provider rejects), is a {@link KosongError} here, naming the tool.
 *
 * Arguments that fail validation are retried with the failing values that
 * are JSON strings of an object or array decoded (some models double-encode
 * nested arrays and objects, e.g. `{"todos": "[...]"}`; kosong repairs them
 * too); if they still fail, the result is a `ToolValidateError` carrying the
 * library's description of the original problem.
 */
export function defineTool<S extends ToolParameters>(spec: ToolSpec<S>): DefinedTool<S> {
  const { name, description, parameters } = spec;
  const definition: Tool = { name, description, parameters: toParametersSchema(name, parameters, spec.jsonSchema) };
  const validate = (value: unknown) => parameters["~standard"].validate(value);
  return {
    name,
    definition,
    parameters,
    async call(args: unknown, context: ToolContext): Promise<ToolReturnValue> {
      // A synchronous validator's result is used at once, so `execute` starts in this same tick.
      const pending = validate(args);
      const first = settled(pending) ?? (await pending);
      let parsed = first;
      let repaired: unknown = args;
      for (let round = 0; parsed.issues !== undefined && round < maxDecodeRounds; round++) {
        repaired = decodeAtIssues(repaired, parsed.issues);
        if (repaired === undefined) break;
        parsed = await validate(repaired);
      }
      if (parsed.issues !== undefined) return new ToolValidateError(describeIssues(first.issues ?? parsed.issues));
      let returned: unknown;
      try {
        returned = await spec.execute(parsed.value as ToolArguments<S>, context);
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

/** The result when it is not a promise, else undefined. */
function settled<T>(result: T | Promise<T>): T | undefined {
  return result instanceof Promise ? undefined : result;
}

function toParametersSchema(name: string, schema: ToolParameters, given: JsonSchema | undefined): JsonSchema {
  let json: Record<string, unknown> | null;
  try {
    json = given === undefined ? libraryJsonSchema(schema) : structuredClone(given);
  } catch (error) {
    throw new KosongError(`Tool \`${name}\`: its parameters have no JSON Schema for the model: ${thrownMessage(error)}`, { cause: error });
  }
  if (json === null) {
    throw new KosongError(
      `Tool \`${name}\`: its parameters (${schema["~standard"].vendor}) provide no JSON Schema for the model: pass \`jsonSchema\` to defineTool, ` +
        "or use a library that converts (zod 3.25+ or 4, arktype, valibot with @valibot/to-json-schema).",
    );
  }
  delete json.$schema;
  delete json.title;
  dropSafeIntegerBounds(json);
  if (json.type !== "object") {
    throw new KosongError(
      `Tool \`${name}\`: its parameters must be a JSON Schema of type "object" (one object of named arguments, e.g. z.object({...})), got ${JSON.stringify(json).slice(0, 200)}`,
    );
  }
  return json as JsonSchema;
}

/** The JSON Schema the schema's library gives (input side), or null when it gives none. */
function libraryJsonSchema(schema: ToolParameters): Record<string, unknown> | null {
  // zod 4 (and zod 3.25+'s `zod/v4`): the bounds go while zod still simplifies (`anyOf` of plain types to a type list).
  if ("_zod" in schema) return z.toJSONSchema(schema as unknown as z.ZodType, { io: "input", override: dropZodSafeIntegerBounds }) as Record<string, unknown>;
  const standard = schema["~standard"].jsonSchema;
  if (standard !== undefined) return standard.input({ target: "draft-2020-12" });
  // zod 3's classic API (`import { z } from "zod"` on zod 3) has no JSON Schema of its own.
  if (schema["~standard"].vendor === "zod" && "_def" in schema) return zod3JsonSchema(schema);
  const own = (schema as { toJsonSchema?: unknown }).toJsonSchema;
  if (typeof own === "function") return (own as () => Record<string, unknown>).call(schema);
  return null;
}

function dropZodSafeIntegerBounds(ctx: { jsonSchema: unknown }): void {
  dropSafeIntegerBounds(ctx.jsonSchema, false);
}

/**
 * Removes the bounds zod gives every integer (`z.int()`, `.int()`): the safe
 * integer range, which says nothing to a model. A bound set to anything else
 * (`.min(0)`, `z.int32()`) stays. In place; `deep` walks the whole schema
 * (zod's override hook visits each node itself).
 */
function dropSafeIntegerBounds(node: unknown, deep = true): void {
  if (Array.isArray(node)) {
    if (deep) for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const json = node as Record<string, unknown>;
  if (json.type === "integer") {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  }
  if (deep) for (const value of Object.values(json)) dropSafeIntegerBounds(value);
}

/** The issues as zod's `prettifyError` writes them: `✖ message` and `→ at path` lines. */
function describeIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      const path = issuePath(issue);
      return path.length === 0 ? `✖ ${issue.message}` : `✖ ${issue.message}\n  → at ${path.map(String).join(".")}`;
    })
    .join("\n");
}

function issuePath(issue: StandardSchemaV1.Issue): PropertyKey[] {
  return (issue.path ?? []).map((segment) => (typeof segment === "object" && segment !== null ? segment.key : segment));
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
function decodeAtIssues(args: unknown, issues: ReadonlyArray<StandardSchemaV1.Issue>): unknown {
  let out = args;
  let changed = false;
  for (const issue of issues) {
    const path = issuePath(issue);
    const value = valueAt(out, path);
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
    out = replaceAt(out, path, 0, decoded);
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
