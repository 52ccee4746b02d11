import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentPartSchema, messageSchema, parseMessage, toolCallSchema } from "@kosong/core";
import { fixture } from "@kosong/test-support";

/** Every message object of the kimi-cli session fixtures. */
function fixtureMessages(): unknown[] {
  const dir = fixture("kimi-cli-sessions");
  const out: unknown[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const name of readdirSync(path.join(dir, entry.name))) {
      if (!name.endsWith(".jsonl")) continue;
      for (const line of readFileSync(path.join(dir, entry.name, name), "utf8").split("\n")) {
        try {
          const value = JSON.parse(line) as { role?: unknown };
          if (typeof value?.role === "string" && !value.role.startsWith("_")) out.push(value);
        } catch {
          // damaged lines are covered by the bad corpus below
        }
      }
    }
  }
  return out;
}

const good: unknown[] = [
  ...fixtureMessages(),
  { role: "user", content: "x" },
  { role: "assistant" },
  { role: "assistant", content: null, name: null, tool_calls: null, tool_call_id: null, partial: null },
  { role: "system", content: [], name: "" },
  { role: "assistant", content: [{ type: "think", think: "t" }], partial: false },
  { role: "user", content: [{ type: "video_url", video_url: { url: "v", id: "1" }, extra: true }] },
  { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" } }] },
  { role: "assistant", content: [], tool_calls: [{ type: null, id: "c", function: { name: "f", arguments: null }, extras: null }] },
  { role: "assistant", content: [], tool_calls: [{ type: "function", id: "c", function: { name: "f", arguments: "" }, extras: { a: [1] } }] },
  { role: "tool", content: "r", tool_call_id: "c", unknown_key: 1 },
];

const bad: unknown[] = [
  null,
  "text",
  42,
  [],
  [{ role: "user", content: "x" }],
  {},
  { content: "no role" },
  { role: "_usage", token_count: 1 },
  { role: "robot", content: "x" },
  { role: 1, content: "x" },
  { role: "user", content: 1 },
  { role: "user", content: {} },
  { role: "user", content: [1] },
  { role: "user", content: [null] },
  { role: "user", content: [{ text: "no type" }] },
  { role: "user", content: [{ type: "hologram" }] },
  { role: "user", content: [{ type: "text" }] },
  { role: "user", content: [{ type: "text", text: null }] },
  { role: "user", content: [{ type: "think", think: 1 }] },
  { role: "user", content: [{ type: "think", think: "t", encrypted: 1 }] },
  { role: "user", content: [{ type: "image_url" }] },
  { role: "user", content: [{ type: "image_url", image_url: { id: "1" } }] },
  { role: "user", content: [{ type: "audio_url", audio_url: { url: "u", id: 2 } }] },
  { role: "user", content: "x", name: 1 },
  { role: "user", content: "x", partial: "true" },
  { role: "tool", content: "x", tool_call_id: 5 },
  { role: "assistant", content: [], tool_calls: {} },
  { role: "assistant", content: [], tool_calls: [null] },
  { role: "assistant", content: [], tool_calls: [{ type: "tool", id: "c", function: { name: "f" } }] },
  { role: "assistant", content: [], tool_calls: [{ function: { name: "f" } }] },
  { role: "assistant", content: [], tool_calls: [{ id: "c" }] },
  { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f", arguments: 1 } }] },
  { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" }, extras: "x" }] },
  { role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" }, extras: [] }] },
];

function parses(value: unknown): boolean {
  try {
    parseMessage(value);
    return true;
  } catch {
    return false;
  }
}

describe("messageSchema", () => {
  it("accepts every good sample with the same result as parseMessage", () => {
    expect(good.length).toBeGreaterThan(40);
    for (const value of good) {
      const result = messageSchema.safeParse(value);
      expect(result.success, JSON.stringify(value)).toBe(true);
      expect(result.data).toEqual(parseMessage(value));
    }
  });

  it("rejects every bad sample, as parseMessage does", () => {
    for (const value of bad) {
      expect(parses(value), JSON.stringify(value)).toBe(false);
      expect(messageSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });

  it("reports where the problem is", () => {
    const result = messageSchema.safeParse({ role: "user", content: [{ type: "text", text: "a" }, { type: "hologram" }] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["content", 1, "type"]);
  });

  it("composes with other zod schemas", () => {
    const request = z.object({ history: z.array(messageSchema) });
    const parsed = request.parse({ history: [{ role: "user", content: "hi" }] });
    expect(parsed.history[0]).toEqual({ role: "user", content: [{ type: "text", text: "hi" }] });
    expect(contentPartSchema.parse({ type: "think", think: "t" })).toEqual({ type: "think", think: "t", encrypted: null });
    expect(toolCallSchema.parse({ id: "c", function: { name: "f" } })).toEqual({
      type: "function",
      id: "c",
      function: { name: "f", arguments: null },
    });
  });
});
