/**
 * Message validation says one thing: `parseMessage` and `messageSchema`
 * accept and reject the same values, and a value JSON cannot hold, anywhere
 * in a message (tool-call `extras` included), is a `MessageParseError` naming
 * its path: never a raw `TypeError` / `DOMException` later (when the message
 * is copied or written) and never a silent change of what is stored.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentPartSchema, MessageParseError, messageSchema, parseMessage, serializeMessage, toolCallSchema } from "@kosong/core";

class Point {
  constructor(
    readonly x = 1,
    readonly y = 2,
  ) {}
}

const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;

/** Values JSON cannot hold (or cannot hold without changing them). */
const nonJson: Array<[string, unknown]> = [
  ["a function", () => 1],
  ["a symbol", Symbol("s")],
  ["a BigInt", 10n],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["undefined in a list", [1, undefined]],
  ["a Date", new Date(0)],
  ["a Map", new Map([["a", 1]])],
  ["a class instance", new Point()],
  ["a cycle", cycle],
  ["a symbol key", { [Symbol("k")]: 1 }],
];

function assistantWithExtras(value: unknown): unknown {
  return { role: "assistant", content: [], tool_calls: [{ type: "function", id: "c1", function: { name: "f", arguments: "{}" }, extras: { trace: { deep: [0, value] } } }] };
}

function parseError(value: unknown): MessageParseError {
  try {
    parseMessage(value);
  } catch (error) {
    expect(MessageParseError.isInstance(error), String(error)).toBe(true);
    return error as MessageParseError;
  }
  throw new Error("parseMessage accepted it");
}

describe("non-JSON values in a message", () => {
  it.each(nonJson)("%s inside tool-call extras is a MessageParseError naming the path, in both readers", (_name, value) => {
    const input = assistantWithExtras(value);
    const error = parseError(input);
    expect(error.path.startsWith("tool_calls[0].extras.trace.deep[1]")).toBe(true);
    const result = messageSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path.slice(0, 6)).toEqual(["tool_calls", 0, "extras", "trace", "deep", 1]);
  });

  it.each(nonJson)("%s in place of a text, an id or a flag is rejected alike", (_name, value) => {
    for (const [input, path] of [
      [{ role: "user", content: [{ type: "text", text: value }] }, "content[0].text"],
      [{ role: "user", content: [{ type: "image_url", image_url: { url: "u", id: value } }] }, "content[0].image_url.id"],
      [{ role: "user", content: "x", partial: value }, "partial"],
      [{ role: "user", content: "x", name: value }, "name"],
    ] as const) {
      // `undefined in a list` is a list there, which is wrong too; every value must be refused.
      expect(parseError(input).path).toBe(path);
      expect(messageSchema.safeParse(input).success).toBe(false);
    }
  });

  it("class instances are refused as the message, a part, a tool call or its function", () => {
    const part = Object.assign(new Point(), { type: "text", text: "hi" });
    const fn = Object.assign(new Point(), { name: "f" });
    for (const [input, path] of [
      [Object.assign(new Point(), { role: "user", content: "x" }), ""],
      [{ role: "user", content: [part] }, "content[0]"],
      [{ role: "assistant", content: [], tool_calls: [{ id: "c", function: fn }] }, "tool_calls[0].function"],
    ] as const) {
      expect(parseError(input).path).toBe(path);
      expect(messageSchema.safeParse(input).success).toBe(false);
    }
  });

  it("a sparse content list is refused at the hole, not stored with a hole", () => {
    const content: unknown[] = [];
    content[1] = { type: "text", text: "after a hole" };
    expect(parseError({ role: "user", content }).path).toBe("content[0]");
  });

  it("accepted extras are stored as given: copied, never shared, byte-identical when written", () => {
    const extras = { trace: { deep: [0, "x", true, null, { n: 1.5 }] } };
    const input = { role: "assistant", content: [], tool_calls: [{ type: "function", id: "c1", function: { name: "f", arguments: "{}" }, extras }] };
    const message = parseMessage(input);
    expect(message.tool_calls![0]!.extras).toEqual(extras);
    expect(message.tool_calls![0]!.extras).not.toBe(extras);
    expect(JSON.parse(serializeMessage(message)).tool_calls[0].extras).toEqual(extras);
    expect(messageSchema.parse(input)).toEqual(message);
  });
});

describe("parseMessage and the zod schemas agree", () => {
  const samples: unknown[] = [
    { role: "user", content: "x" },
    { role: "user", content: [{ type: "text", text: "a" }, { type: "hologram" }] },
    { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" }, extras: { a: [1] } }] },
    { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" }, extras: { a: new Date() } }] },
    { role: "tool", content: "r", tool_call_id: 5 },
    '{"role":"user","content":"a JSON string"}',
    ...nonJson.map(([, value]) => ({ role: "user", content: value })),
  ];

  it("on every sample: same verdict, same message, same path", () => {
    for (const sample of samples) {
      const schema = messageSchema.safeParse(sample);
      if (typeof sample === "string") {
        // The schema takes parsed values; parseMessage also reads JSON text.
        expect(schema.success).toBe(false);
        continue;
      }
      let parsed: unknown;
      let error: MessageParseError | null = null;
      try {
        parsed = parseMessage(sample);
      } catch (e) {
        error = e as MessageParseError;
      }
      expect(schema.success, String(error)).toBe(error === null);
      if (error === null) expect(schema.data).toEqual(parsed);
      else expect(schema.error!.issues[0]!.message).toBe(error.message);
    }
  });

  it("nested in another schema, the issue path starts at the outer field", () => {
    const request = z.object({ history: z.array(messageSchema) });
    const result = request.safeParse({ history: [{ role: "user", content: "ok" }, assistantWithExtras(10n)] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path.slice(0, 4)).toEqual(["history", 1, "tool_calls", 0]);
  });

  it("the part and tool-call schemas read like parseMessage's parts and calls", () => {
    expect(contentPartSchema.parse({ type: "think", think: "t" })).toEqual({ type: "think", think: "t", encrypted: null });
    expect(contentPartSchema.safeParse({ type: "text", text: new String("boxed") }).success).toBe(false);
    expect(toolCallSchema.safeParse({ id: "c", function: { name: "f" }, extras: { f: () => 1 } }).success).toBe(false);
  });
});
