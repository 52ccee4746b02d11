import { describe, expect, it } from "vitest";
import { KosongError, MessageParseError, parseMessage } from "@kosong/core";

function parseError(input: unknown): MessageParseError {
  try {
    parseMessage(input);
  } catch (error) {
    expect(MessageParseError.isInstance(error)).toBe(true);
    expect(KosongError.isInstance(error)).toBe(true);
    return error as MessageParseError;
  }
  throw new Error("expected parseMessage to throw");
}

describe("parseMessage: tolerant reading", () => {
  it("reads a string content as one text part", () => {
    expect(parseMessage('{"role":"user","content":"hello"}')).toEqual({ role: "user", content: [{ type: "text", text: "hello" }] });
    expect(parseMessage({ role: "tool", content: "", tool_call_id: "c" })).toEqual({
      role: "tool",
      content: [{ type: "text", text: "" }],
      tool_call_id: "c",
    });
  });

  it("reads missing or null content as no parts", () => {
    expect(parseMessage({ role: "assistant" }).content).toEqual([]);
    expect(parseMessage({ role: "assistant", content: null }).content).toEqual([]);
  });

  it("drops null top-level fields instead of keeping them", () => {
    const message = parseMessage({ role: "user", content: "x", name: null, tool_calls: null, tool_call_id: null, partial: null });
    expect(message).toEqual({ role: "user", content: [{ type: "text", text: "x" }] });
    expect(Object.keys(message).sort()).toEqual(["content", "role"]);
  });

  it("fills a missing think signature and media id with null", () => {
    const message = parseMessage({
      role: "user",
      content: [{ type: "think", think: "t" }, { type: "audio_url", audio_url: { url: "a.mp3" } }],
    });
    expect(message.content).toEqual([
      { type: "think", think: "t", encrypted: null },
      { type: "audio_url", audio_url: { url: "a.mp3", id: null } },
    ]);
  });

  it("reads every part type", () => {
    const parts = [
      { type: "text", text: "a" },
      { type: "think", think: "b", encrypted: "sig" },
      { type: "image_url", image_url: { url: "i", id: "1" } },
      { type: "audio_url", audio_url: { url: "a", id: null } },
      { type: "video_url", video_url: { url: "v", id: "3" } },
    ];
    expect(parseMessage({ role: "user", content: parts }).content).toEqual(parts);
  });

  it("reads a tool call without `arguments` (or without `type`) and ignores unknown extra keys", () => {
    const message = parseMessage({
      role: "assistant",
      content: [],
      tool_calls: [{ id: "c1", function: { name: "Think" }, index: 0 }],
      reasoning_content: "ignored",
    });
    expect(message).toEqual({
      role: "assistant",
      content: [],
      tool_calls: [{ type: "function", id: "c1", function: { name: "Think", arguments: null } }],
    });
  });

  it("shares no objects with the input value", () => {
    const input = { role: "user", content: [{ type: "image_url", image_url: { url: "u", id: null } }] };
    const message = parseMessage(input);
    (input.content[0]!.image_url as { url: string }).url = "changed";
    expect(message.content[0]).toEqual({ type: "image_url", image_url: { url: "u", id: null } });
    const extras = { thought_signature: { v: "sig" } };
    const withCall = parseMessage({ role: "assistant", content: [], tool_calls: [{ id: "c", function: { name: "f" }, extras }] });
    extras.thought_signature.v = "changed";
    expect(withCall.tool_calls![0]!.extras).toEqual({ thought_signature: { v: "sig" } });
  });
});

describe("parseMessage: errors name the bad path", () => {
  it("rejects text that is not JSON", () => {
    const error = parseError('{"role": "user", "content": "trunc');
    expect(error.path).toBe("");
    expect(error.message).toMatch(/^invalid message: not valid JSON/);
  });

  it("rejects a value that is not an object", () => {
    expect(parseError("[1,2,3]").message).toBe("invalid message: expected a JSON object, got an array");
    expect(parseError(null).message).toBe("invalid message: expected a JSON object, got null");
    expect(parseError(42).message).toContain("expected a JSON object");
  });

  it("rejects a missing or unknown role", () => {
    const missing = parseError({ content: "no role" });
    expect(missing.path).toBe("role");
    expect(missing.message).toContain("at role");
    const bad = parseError({ role: "robot", content: "x" });
    expect(bad.path).toBe("role");
    expect(bad.message).toContain('"robot"');
    expect(parseError({ role: "_usage", token_count: 3 }).path).toBe("role");
  });

  it("rejects an unknown content part type, naming its index", () => {
    const error = parseError({ role: "user", content: [{ type: "text", text: "ok" }, { type: "hologram", data: 1 }] });
    expect(error.path).toBe("content[1].type");
    expect(error.message).toBe('invalid message at content[1].type: unknown content part type string "hologram"');
  });

  it("rejects bad fields inside parts", () => {
    expect(parseError({ role: "user", content: [{ type: "text", text: 5 }] }).path).toBe("content[0].text");
    expect(parseError({ role: "user", content: [{ type: "think", think: "t", encrypted: 1 }] }).path).toBe(
      "content[0].encrypted",
    );
    expect(parseError({ role: "user", content: [{ type: "image_url", image_url: "u" }] }).path).toBe("content[0].image_url");
    expect(parseError({ role: "user", content: [{ type: "video_url", video_url: { id: "x" } }] }).path).toBe(
      "content[0].video_url.url",
    );
    expect(parseError({ role: "user", content: ["text"] }).path).toBe("content[0]");
    expect(parseError({ role: "user", content: 7 }).path).toBe("content");
  });

  it("rejects bad top-level fields", () => {
    expect(parseError({ role: "user", content: "x", name: 1 }).path).toBe("name");
    expect(parseError({ role: "tool", content: "x", tool_call_id: 1 }).path).toBe("tool_call_id");
    expect(parseError({ role: "assistant", content: "x", partial: "yes" }).path).toBe("partial");
    expect(parseError({ role: "assistant", content: "x", tool_calls: {} }).path).toBe("tool_calls");
  });

  it("rejects bad tool calls, naming the field", () => {
    const call = (over: Record<string, unknown>) => ({
      role: "assistant",
      content: [],
      tool_calls: [{ type: "function", id: "c", function: { name: "f", arguments: "{}" } }, over],
    });
    expect(parseError(call({ id: "c2", function: { name: "f" }, type: "tool" })).path).toBe("tool_calls[1].type");
    expect(parseError(call({ function: { name: "f" } })).path).toBe("tool_calls[1].id");
    expect(parseError(call({ id: "c2" })).path).toBe("tool_calls[1].function");
    expect(parseError(call({ id: "c2", function: { arguments: "{}" } })).path).toBe("tool_calls[1].function.name");
    expect(parseError(call({ id: "c2", function: { name: "f", arguments: {} } })).path).toBe("tool_calls[1].function.arguments");
    expect(parseError(call({ id: "c2", function: { name: "f" }, extras: [1] })).path).toBe("tool_calls[1].extras");
  });
});
