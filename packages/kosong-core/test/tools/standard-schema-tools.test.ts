/**
 * defineTool takes any Standard Schema library: valibot, arktype and zod 3's
 * classic API here (zod 3 and 4 are also covered by the packed-install test
 * of @kosong/soul). Each
 * tool validates the model's arguments with its own library, repairs
 * double-encoded values, and sends the JSON Schema the library gives; a
 * library that gives none is a clear error unless `jsonSchema` is passed.
 */
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineTool, KosongError, ToolValidateError, type ToolContext } from "@kosong/core";
// zod 3.25's classic API, as `import { z } from "zod"` gives it on zod 3 (a dev dependency alias).
import { z as z3 } from "zod3";

const ctx = (): ToolContext => ({ toolCallId: "c", signal: new AbortController().signal });

describe("defineTool with Standard Schema libraries", () => {
  it("takes a valibot schema: JSON Schema from its adapter, validation and repair by valibot", async () => {
    const tool = defineTool({
      name: "add",
      description: "Adds.",
      parameters: toStandardJsonSchema(v.object({ a: v.number(), items: v.optional(v.array(v.string())) })),
      execute: ({ a, items }) => {
        expectTypeOf(a).toEqualTypeOf<number>();
        return `${a + 1}:${(items ?? []).join(",")}`;
      },
    });
    expect(tool.definition.parameters).toEqual({
      type: "object",
      properties: { a: { type: "number" }, items: { type: "array", items: { type: "string" } } },
      required: ["a"],
    });
    expect((await tool.call({ a: 1, items: '["x","y"]' }, ctx())).output).toBe("2:x,y");
    const bad = await tool.call({ a: "one" }, ctx());
    expect(ToolValidateError.isInstance(bad)).toBe(true);
    expect(bad.message).toMatch(/^Error validating JSON arguments: ✖ .*\n {2}→ at a$/s);
  });

  it("takes a zod 3 classic schema without a hand-written jsonSchema: converted for the model, validated by zod 3", async () => {
    const tool = defineTool({
      name: "search",
      description: "Searches.",
      parameters: z3.object({ query: z3.string().describe("what to find"), limit: z3.number().int().default(10), tags: z3.array(z3.string()).optional() }),
      execute: ({ query, limit, tags }) => {
        expectTypeOf(limit).toEqualTypeOf<number>();
        return `${query}:${limit}:${(tags ?? []).join(",")}`;
      },
    });
    expect(tool.definition.parameters).toMatchObject({
      type: "object",
      properties: { query: { type: "string", description: "what to find" }, limit: { type: "integer", default: 10 }, tags: { type: "array", items: { type: "string" } } },
      required: ["query"],
    });
    expect(tool.definition.parameters).not.toHaveProperty("$schema");
    expect((await tool.call({ query: "x", tags: '["a","b"]' }, ctx())).output).toBe("x:10:a,b");
    const bad = await tool.call({ query: 1 }, ctx());
    expect(ToolValidateError.isInstance(bad)).toBe(true);
  });

  it("takes an arktype type: its own JSON Schema, validation by arktype", async () => {
    const tool = defineTool({
      name: "greet",
      description: "Greets.",
      parameters: type({ name: "string", "times?": "number.integer" }),
      execute: ({ name, times }) => `hi ${name} x${times ?? 1}`,
    });
    expect(tool.definition.parameters).toMatchObject({ type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    expect(tool.definition.parameters).not.toHaveProperty("$schema");
    expect((await tool.call({ name: "Ann", times: 2 }, ctx())).output).toBe("hi Ann x2");
    expect((await tool.call({ name: 3 }, ctx())).is_error).toBe(true);
  });

  it("says what to do when the library gives no JSON Schema, and takes one given", async () => {
    const parameters = v.object({ path: v.string() });
    expect(() => defineTool({ name: "read", description: "d", parameters, execute: () => "ok" })).toThrowError(KosongError);
    expect(() => defineTool({ name: "read", description: "d", parameters, execute: () => "ok" })).toThrowError(/`read`.*\(valibot\).*pass `jsonSchema`/);
    const jsonSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    const tool = defineTool({ name: "read", description: "d", parameters, jsonSchema, execute: ({ path }) => `read ${path}` });
    expect(tool.definition.parameters).toEqual(jsonSchema);
    expect((await tool.call({ path: "a.txt" }, ctx())).output).toBe("read a.txt");
  });
});
