import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  KosongError,
  textPart,
  ToolCancelledError,
  ToolError,
  toolError,
  toolOk,
  ToolRuntimeError,
  ToolValidateError,
  type ToolContext,
} from "@kosong/core";

const ctx = (toolCallId = "call-1"): ToolContext => ({ toolCallId, signal: new AbortController().signal });

const add = defineTool({
  name: "add",
  description: "Add two integers.",
  parameters: z.object({
    a: z.number().int().describe("first addend"),
    b: z.number().int(),
    label: z.string().default("sum"),
  }),
  execute: ({ a, b, label }) => toolOk({ output: `${label}=${a + b}`, brief: "added" }),
});

describe("defineTool", () => {
  it("derives the definition from the zod schema, without $schema and title", () => {
    expect(add.name).toBe("add");
    expect(add.definition).toEqual({
      name: "add",
      description: "Add two integers.",
      parameters: {
        type: "object",
        properties: {
          a: { type: "integer", description: "first addend" },
          b: { type: "integer" },
          label: { type: "string", default: "sum" },
        },
        required: ["a", "b"],
      },
    });
    const titled = defineTool({
      name: "t",
      description: "d",
      parameters: z.object({ title: z.string() }).meta({ title: "Params" }),
      execute: () => "ok",
    });
    expect(titled.definition.parameters).not.toHaveProperty("title");
    expect(titled.definition.parameters).not.toHaveProperty("$schema");
    expect(titled.definition.parameters.properties).toEqual({ title: { type: "string" } });
  });

  it("sends integers as {type: integer}, without zod's safe-integer bounds, keeping bounds the schema sets", () => {
    const tool = defineTool({
      name: "page",
      description: "d",
      parameters: z.object({
        plain: z.int(),
        list: z.array(z.number().int()),
        either: z.union([z.int(), z.string()]).optional(),
        from: z.int().min(0),
        positive: z.int().positive(),
        upTo: z.int().max(10),
        small: z.int32(),
      }),
      execute: () => "ok",
    });
    expect(tool.definition.parameters.properties).toEqual({
      plain: { type: "integer" },
      list: { type: "array", items: { type: "integer" } },
      either: { type: ["integer", "string"] },
      from: { type: "integer", minimum: 0 },
      positive: { type: "integer", exclusiveMinimum: 0 },
      upTo: { type: "integer", maximum: 10 },
      small: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
    });
  });

  it("rejects parameters whose JSON Schema is not an object with a KosongError naming the tool", () => {
    // Schemas whose input is no object do not typecheck; these casts stand for untyped callers.
    const define = (parameters: z.ZodType) => () =>
      defineTool({ name: "shout", description: "d", parameters: parameters as z.ZodObject, execute: () => "ok" });
    for (const parameters of [z.string(), z.array(z.string()), z.object({ a: z.string() }).nullable(), z.unknown(), z.any()]) {
      expect(define(parameters)).toThrow(KosongError);
    }
    expect(define(z.string())).toThrow('Tool `shout`: its parameters must be a JSON Schema of type "object"');
    expect(define(z.string())).toThrow(/got \{"type":"string"\}$/);
    const union = z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]);
    expect(define(union)).toThrow(/^Tool `shout`: .* got \{"anyOf":/);
  });

  it("accepts object-shaped schemas: records, refined, transformed and strict objects", () => {
    const shapes = [
      z.record(z.string(), z.int()),
      z.object({ a: z.string() }).refine((v) => v.a !== ""),
      z.object({ a: z.string() }).transform((v) => v.a),
      z.strictObject({ a: z.string() }),
    ];
    for (const parameters of shapes) {
      const tool = defineTool({ name: "t", description: "d", parameters, execute: () => "ok" });
      expect(tool.definition.parameters.type).toBe("object");
    }
  });

  it("types parameters as object schemas", () => {
    // @ts-expect-error a string schema is no object of named arguments
    expect(() => defineTool({ name: "s", description: "d", parameters: z.string(), execute: () => "ok" })).toThrow(KosongError);
    // @ts-expect-error nor is an array
    expect(() => defineTool({ name: "s", description: "d", parameters: z.array(z.int()), execute: () => "ok" })).toThrow(KosongError);
  });

  it("rejects parameters without a JSON Schema form with a KosongError naming the tool", () => {
    const define = () =>
      defineTool({ name: "remind", description: "Set a reminder.", parameters: z.object({ at: z.date() }), execute: () => "ok" });
    expect(define).toThrow(KosongError);
    expect(define).toThrow(/^Tool `remind`: its parameters have no JSON Schema for the model: Date cannot be represented/);
  });

  it("runs with validated, defaulted parameters", async () => {
    expect(await add.call({ a: 2, b: 3 }, ctx())).toEqual({
      is_error: false,
      output: "sum=5",
      message: "",
      display: [{ type: "brief", text: "added" }],
      extras: null,
    });
  });

  it("gives the tool its call id and signal", async () => {
    let seen: ToolContext | undefined;
    const tool = defineTool({
      name: "peek",
      description: "d",
      parameters: z.object({}),
      execute: (_params, context) => {
        seen = context;
        return "ok";
      },
    });
    const context = ctx("call-42");
    await tool.call({}, context);
    expect(seen).toBe(context);
  });

  it("turns invalid arguments into a ToolValidateError naming the field", async () => {
    const result = await add.call({ a: "two", b: 3 }, ctx());
    expect(ToolValidateError.isInstance(result)).toBe(true);
    expect(result.is_error).toBe(true);
    expect(result.message).toMatch(/^Error validating JSON arguments: /);
    expect(result.message).toContain("expected number");
    expect(result.message).toContain("at a");
    expect(result.display).toEqual([{ type: "brief", text: "Invalid arguments" }]);
  });

  it("decodes double-encoded nested JSON before giving up, as kosong does", async () => {
    const todos = defineTool({
      name: "todos",
      description: "d",
      parameters: z.object({ todos: z.array(z.object({ title: z.string() })), note: z.string() }),
      execute: ({ todos, note }) => `${todos.map((t) => t.title).join(",")}|${note}`,
    });
    const result = await todos.call({ todos: '[{"title":"x"},{"title":"y"}]', note: '{"kept": "as string"}' }, ctx());
    expect(result.output).toBe('x,y|{"kept": "as string"}');
    const failed = await todos.call({ todos: "[1]", note: "n" }, ctx());
    expect(ToolValidateError.isInstance(failed)).toBe(true);
    expect(failed.message).toContain("at todos");
  });

  it("decodes double encoding at several levels", async () => {
    const nested = defineTool({
      name: "nested",
      description: "d",
      parameters: z.object({ items: z.array(z.object({ tags: z.array(z.string()) })) }),
      execute: ({ items }) => items.map((i) => i.tags.join("+")).join(","),
    });
    const args = { items: JSON.stringify([{ tags: JSON.stringify(["a", "b"]) }, { tags: ["c"] }]) };
    const snapshot = JSON.stringify(args);
    expect((await nested.call(args, ctx())).output).toBe("a+b,c");
    expect(JSON.stringify(args)).toBe(snapshot);
  });

  it("turns a thrown error into a ToolRuntimeError", async () => {
    const boom = defineTool({
      name: "boom",
      description: "d",
      parameters: z.object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const result = await boom.call({}, ctx());
    expect(ToolRuntimeError.isInstance(result)).toBe(true);
    expect(result.message).toBe("Error running tool: disk on fire");
    expect(result.display).toEqual([{ type: "brief", text: "Tool runtime error" }]);
  });

  it("reports an error thrown after cancellation as cancelled", async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: "slow",
      description: "d",
      parameters: z.object({}),
      execute: (_p, { signal }) =>
        new Promise<string>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    });
    const pending = slow.call({}, { toolCallId: "c", signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(ToolCancelledError.isInstance(result)).toBe(true);
    expect(result.is_error).toBe(true);
  });

  it("accepts a string as a successful text output and rejects other return values", async () => {
    const text = defineTool({ name: "s", description: "d", parameters: z.object({}), execute: () => "plain" });
    expect(await text.call({}, ctx())).toEqual(toolOk("plain"));
    const bad = defineTool({ name: "b", description: "d", parameters: z.object({}), execute: () => 42 as unknown as string });
    const result = await bad.call({}, ctx());
    expect(result).toEqual(toolError({ message: "Invalid return type: number", brief: "Invalid return type" }));
  });
});

describe("tool return values", () => {
  it("toolOk accepts an output, a part, parts or options", () => {
    expect(toolOk("x")).toEqual({ is_error: false, output: "x", message: "", display: [], extras: null });
    expect(toolOk(textPart("p")).output).toEqual([textPart("p")]);
    expect(toolOk([textPart("a"), textPart("b")]).output).toHaveLength(2);
    expect(toolOk({ output: "o", message: "for the model", brief: "for the user", extras: { n: 1 } })).toEqual({
      is_error: false,
      output: "o",
      message: "for the model",
      display: [{ type: "brief", text: "for the user" }],
      extras: { n: 1 },
    });
  });

  it("toolError builds kosong's ToolError shape, serialised like kosong", () => {
    const error = toolError({ message: "no such file", brief: "Not found" });
    expect(ToolError.isInstance(error)).toBe(true);
    expect(JSON.stringify(error)).toBe(
      '{"is_error":true,"output":"","message":"no such file","display":[{"type":"brief","text":"Not found"}],"extras":null}',
    );
    expect(ToolError.isInstance({ ...error })).toBe(false);
  });
});
