/**
 * The JSON Schema of a zod 3 classic schema (`import { z } from "zod"` on
 * zod 3.25), which has none of its own, through zod-to-json-schema: the
 * input side (defaults make a field optional, transforms and pipes are
 * described by what they accept), without `$ref`s (a tool's parameters are
 * one self-contained schema).
 */
import { zodToJsonSchema } from "zod-to-json-schema";
import type { StandardSchemaV1 } from "./standard-schema.js";

/** The JSON Schema of `schema`, a zod 3 classic schema (it has `_def`, not `_zod`). */
export function zod3JsonSchema(schema: StandardSchemaV1): Record<string, unknown> {
  const convert = zodToJsonSchema as unknown as (schema: unknown, options: Record<string, unknown>) => Record<string, unknown>;
  return convert(schema, { target: "jsonSchema7", $refStrategy: "none", effectStrategy: "input", pipeStrategy: "input" });
}
