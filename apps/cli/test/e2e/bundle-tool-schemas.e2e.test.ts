/**
 * The built-in tools' JSON Schemas in the built bundle: converted once by
 * the build (`build/prebuilt-json-schemas.ts`), not at each start, and the
 * same schemas `defineTool` makes of the tools' parameters at run time, so
 * the model sees what it saw before (a tool whose parameters change is
 * converted again by the next build; a stale bundle fails here).
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { parse } from "acorn";
import type { JsonSchema } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { builtInJsonSchemas } from "../../build/prebuilt-json-schemas.js";
import { builtInToolParameters } from "../../src/tools/built-in-tool-parameters.js";
import { useTempDirs } from "../temp-dir.js";
import { loadedChunks, runKosong, useFakeProviderServer } from "./kosong-binary.js";

const fake = useFakeProviderServer();
const tempDir = useTempDirs();

/** The JSON Schemas `defineTool` makes of the built-in tools' parameters, here, from the sources. */
const converted = builtInJsonSchemas();

/** The value the bundle gives `prebuiltJsonSchemas` (a `JSON.parse` of one string), or null when no loaded chunk declares it. */
async function bundledSchemas(): Promise<Record<string, JsonSchema> | null> {
  for (const code of (await loadedChunks()).values()) {
    for (const statement of parse(code, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true }).body) {
      if (statement.type !== "VariableDeclaration") continue;
      for (const { id, init } of statement.declarations) {
        if (id.type !== "Identifier" || id.name !== "prebuiltJsonSchemas") continue;
        if (init?.type !== "CallExpression" || init.arguments[0]?.type !== "Literal") throw new Error("prebuiltJsonSchemas is not a JSON.parse of a string");
        return JSON.parse(String(init.arguments[0].value)) as Record<string, JsonSchema>;
      }
    }
  }
  return null;
}

describe("the built-in tools' JSON Schemas in the bundle", { timeout: 60_000 }, () => {
  it("are there, one for each built-in tool, equal to defineTool's conversion of its parameters", async () => {
    const schemas = await bundledSchemas();
    expect(schemas).not.toBeNull();
    expect(Object.keys(schemas!).sort()).toEqual(Object.keys(builtInToolParameters).sort());
    expect(schemas).toEqual(converted);
  });

  it("are what the built binary's first request sends for every tool but the soul's own", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    fake.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Hi." }] } });
    const run = await runKosong(["-p", "hi"], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` } });
    expect(run.code, run.stderr).toBe(0);
    const tools = fake.server.requests[0]!.body!.tools as Array<{ function: { name: string; parameters: JsonSchema } }>;
    const sent = new Map(tools.map(({ function: f }) => [f.name, f.parameters]));
    const cliTools = [...sent.keys()].filter((name) => name !== "Recall" && name !== "SendDMail");
    expect(cliTools.length).toBeGreaterThan(10);
    for (const name of cliTools) {
      expect(Object.hasOwn(builtInToolParameters, name), `${name} is listed in built-in-tool-parameters.ts`).toBe(true);
      expect(sent.get(name), name).toEqual(converted[name]);
    }
  });
});
