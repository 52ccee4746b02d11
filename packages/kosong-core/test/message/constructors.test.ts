import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  audioURLPart,
  extractText,
  imageURLPart,
  isContentPart,
  serializeMessage,
  systemMessage,
  textPart,
  thinkPart,
  toolCall,
  toolCallPart,
  toolMessage,
  userMessage,
  videoURLPart,
} from "@kosong/core";

describe("message constructors", () => {
  it("build parts in kosong's shape", () => {
    expect(textPart("a")).toEqual({ type: "text", text: "a" });
    expect(thinkPart("b")).toEqual({ type: "think", think: "b", encrypted: null });
    expect(thinkPart("b", "sig")).toEqual({ type: "think", think: "b", encrypted: "sig" });
    expect(imageURLPart("i")).toEqual({ type: "image_url", image_url: { url: "i", id: null } });
    expect(audioURLPart("a", "x")).toEqual({ type: "audio_url", audio_url: { url: "a", id: "x" } });
    expect(videoURLPart("v")).toEqual({ type: "video_url", video_url: { url: "v", id: null } });
  });

  it("encode tool call arguments given as an object, keep strings and null as they are", () => {
    expect(toolCall("c", "f", { a: 1 })).toEqual({ type: "function", id: "c", function: { name: "f", arguments: '{"a":1}' } });
    expect(toolCall("c", "f", '{"a": 1}').function.arguments).toBe('{"a": 1}');
    expect(toolCall("c", "f").function.arguments).toBeNull();
  });

  it("build stream fragments with and without an index", () => {
    expect(toolCallPart('{"a"')).toEqual({ type: "tool_call_part", arguments_part: '{"a"' });
    expect(toolCallPart(":1}", 2)).toEqual({ type: "tool_call_part", arguments_part: ":1}", index: 2 });
    expect("index" in toolCallPart("x")).toBe(false);
  });

  it("build messages from a string, a part or a list of parts", () => {
    expect(systemMessage("s")).toEqual({ role: "system", content: [{ type: "text", text: "s" }] });
    expect(userMessage(imageURLPart("i")).content).toEqual([imageURLPart("i")]);
    expect(userMessage([textPart("a"), textPart("b")]).content).toHaveLength(2);
    expect(toolMessage("c1", "out")).toEqual({ role: "tool", content: [{ type: "text", text: "out" }], tool_call_id: "c1" });
  });

  it("leave tool_calls out of an assistant message without calls", () => {
    expect(assistantMessage("hi")).toEqual({ role: "assistant", content: [{ type: "text", text: "hi" }] });
    expect("tool_calls" in assistantMessage("hi", [])).toBe(false);
    const call = toolCall("c", "f", {});
    expect(assistantMessage([], [call])).toEqual({ role: "assistant", content: [], tool_calls: [call] });
    expect(serializeMessage(assistantMessage("hi", []))).toBe('{"role":"assistant","content":"hi"}');
  });

  it("extract text without think parts", () => {
    const message = assistantMessage([thinkPart("secret"), textPart("a"), imageURLPart("i"), textPart("b")]);
    expect(extractText(message)).toBe("ab");
    expect(extractText(message, "\n")).toBe("a\nb");
  });

  it("tell content parts from tool calls and fragments", () => {
    expect(isContentPart(textPart("a"))).toBe(true);
    expect(isContentPart(imageURLPart("i"))).toBe(true);
    expect(isContentPart(toolCall("c", "f"))).toBe(false);
    expect(isContentPart(toolCallPart("x"))).toBe(false);
  });
});
