/**
 * The build's half of `src/tools/prebuilt-json-schemas.ts`: an esbuild
 * plugin that bundles, in place of that empty module, the JSON Schema
 * `defineTool` makes of each built-in tool's parameters
 * (`src/tools/built-in-tool-parameters.ts`), converted here, once, by the
 * same `defineTool` and zod the bundle carries.
 */
import { defineTool, type JsonSchema } from "@kosong/core";
import type { Options } from "tsup";
import { builtInToolParameters } from "../src/tools/built-in-tool-parameters.js";

/** An esbuild plugin, as tsup takes them. */
type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/** What `defineTool` sends the model for each tool of {@link builtInToolParameters}. */
export function builtInJsonSchemas(): Record<string, JsonSchema> {
  const convert = (name: string) => defineTool({ name, description: "", parameters: builtInToolParameters[name]!, execute: () => "" }).definition.parameters;
  return Object.fromEntries(Object.keys(builtInToolParameters).map((name) => [name, convert(name)]));
}

/** The module bundled as `src/tools/prebuilt-json-schemas.ts`: the schemas as one JSON text (parsed faster than a literal). */
export function prebuiltJsonSchemasModule(schemas: Record<string, JsonSchema>): string {
  return `export const prebuiltJsonSchemas = JSON.parse(${JSON.stringify(JSON.stringify(schemas))});\n`;
}

/** The esbuild plugin: loads `src/tools/prebuilt-json-schemas.ts` as {@link prebuiltJsonSchemasModule} of {@link builtInJsonSchemas}. */
export const prebuiltJsonSchemasPlugin: EsbuildPlugin = {
  name: "prebuilt-json-schemas",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]tools[\\/]prebuilt-json-schemas\.ts$/ }, () => ({ contents: prebuiltJsonSchemasModule(builtInJsonSchemas()), loader: "js" }));
  },
};
