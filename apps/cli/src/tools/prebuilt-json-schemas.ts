/**
 * The JSON Schemas of the built-in tools' parameters, by tool name, as the
 * build computes them (`build/prebuilt-json-schemas.ts` evaluates
 * {@link builtInToolParameters} through `defineTool` and bundles the result
 * in place of this module). Running from source, it is empty and
 * `defineTool` converts each tool's parameters when the tool is built, as it
 * does for any tool; the bundle skips that conversion at every start (zod's
 * JSON Schema generator allocates about 1 MB for the sixteen tools before the
 * first request, enough to bring a full collection before it). A test
 * (`test/e2e/bundle-tool-schemas.e2e.test.ts`) holds the bundle's schemas
 * equal to the conversion.
 */
import type { JsonSchema } from "@kosong/core";

/** Empty here: the build fills it (see the module's comment). */
export const prebuiltJsonSchemas: Readonly<Record<string, JsonSchema>> = {};
