/**
 * Stands in for zod-to-json-schema in the CLI's bundle. @kosong/core's
 * `defineTool` converts a zod 3 schema (zod 3's classic API, `_def` without
 * `_zod`) to JSON Schema through that package, which brings zod 3 along
 * (156 KB of the bundle's zod chunk, read and compiled at every start). The
 * CLI's tools are all zod 4 schemas, which convert themselves, so the bundle
 * carries this instead (see tsup.config.ts); a zod 3 schema reaching it is
 * a clear error, which `defineTool` reports naming the tool.
 */
export function zodToJsonSchema(): never {
  throw new Error("zod 3 schemas are not supported in the kosong CLI's bundle (its tools use zod 4)");
}
