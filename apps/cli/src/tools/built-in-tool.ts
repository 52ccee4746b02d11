/** How the CLI defines its built-in tools: `defineTool`, with the JSON Schema the build computed when there is one. */
import { defineTool, type DefinedTool, type ToolParameters, type ToolSpec } from "@kosong/core";
import { prebuiltJsonSchemas } from "./prebuilt-json-schemas.js";

/**
 * `defineTool(spec)`, given the JSON Schema the build computed for a tool of
 * this name (see `prebuilt-json-schemas.ts`), if any: the same schema
 * `defineTool` would make of `spec.parameters`, without converting them at
 * start. A tool listed in `built-in-tool-parameters.ts` must define its
 * parameters exactly as listed there.
 */
export function defineBuiltInTool<S extends ToolParameters>(spec: ToolSpec<S>): DefinedTool<S> {
  const jsonSchema = Object.hasOwn(prebuiltJsonSchemas, spec.name) ? prebuiltJsonSchemas[spec.name] : undefined;
  return defineTool(jsonSchema === undefined ? spec : { ...spec, jsonSchema });
}
