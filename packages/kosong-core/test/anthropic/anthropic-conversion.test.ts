/**
 * Request conversion beyond the upstream snapshots: mid-history system
 * messages, grouping of tool results, cache_control placement, bad input,
 * and the deliberate differences from upstream kosong (each with its reason).
 */
import {
  ChatProviderError,
  assistantMessage,
  audioURLPart,
  imageURLPart,
  systemMessage,
  textPart,
  thinkPart,
  toolCall,
  toolMessage,
  userMessage,
  videoURLPart,
  type Message,
  type Tool,
} from "@kosong/core";
import { convertAnthropicMessages, convertAnthropicRequest, convertAnthropicTools, parseToolCallInput } from "@kosong/core/anthropic";
import { describe, expect, it } from "vitest";
import { anthropicProvider, startServer } from "./helpers.js";

const ephemeral = { type: "ephemeral" };

describe("message conversion", () => {
  it("turns a system message inside the history into a <system> user message (text parts joined by newlines)", () => {
    const messages = convertAnthropicMessages([
      userMessage("Hi"),
      systemMessage([textPart("line 1"), textPart("line 2")]),
      assistantMessage("Hello"),
    ]);
    expect(messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "<system>line 1\nline 2</system>" }] });
  });

  it("groups consecutive tool results into one user message, and only those", () => {
    const messages = convertAnthropicMessages([
      userMessage("go"),
      assistantMessage("", [toolCall("a", "f", {}), toolCall("b", "f", {})]),
      toolMessage("a", "A"),
      toolMessage("b", "B"),
      userMessage("<system-reminder>keep going</system-reminder>"),
      assistantMessage("", [toolCall("c", "f", {})]),
      toolMessage("c", "C"),
    ]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "user", "assistant", "user"]);
    expect(messages[2]!.content.map((b) => b.type === "tool_result" && b.tool_use_id)).toEqual(["a", "b"]);
    expect(messages[3]!.content).toEqual([{ type: "text", text: "<system-reminder>keep going</system-reminder>" }]);
    expect(messages[5]!.content).toEqual([
      { type: "tool_result", tool_use_id: "c", content: [{ type: "text", text: "C" }], cache_control: ephemeral },
    ]);
  });

  it("sends tool results as text with toolMessageConversion extract_text", () => {
    const messages = convertAnthropicMessages([toolMessage("a", [textPart("one"), imageURLPart("https://x/y.png"), textPart("two")])], {
      toolMessageConversion: "extract_text",
    });
    expect(messages[0]!.content).toEqual([{ type: "tool_result", tool_use_id: "a", content: "one\ntwo", cache_control: ephemeral }]);
  });

  it("leaves video parts out, except for a gateway that accepts them", () => {
    const history = [userMessage([textPart("watch"), videoURLPart("https://x/v.mp4")])];
    expect(convertAnthropicMessages(history)[0]!.content).toEqual([{ type: "text", text: "watch", cache_control: ephemeral }]);
    expect(convertAnthropicMessages(history, { allowVideoURL: true })[0]!.content).toEqual([
      { type: "text", text: "watch" },
      { type: "video_url", video_url: { url: "https://x/v.mp4", id: null } },
    ]);
  });

  it("sends signed thinking verbatim and puts no cache_control on a thinking block", () => {
    const messages = convertAnthropicMessages([userMessage("q"), assistantMessage([thinkPart("hmm", "sig-1")])]);
    expect(messages[1]!.content).toEqual([{ type: "thinking", thinking: "hmm", signature: "sig-1" }]);
  });

  it("marks only the last tool with cache_control and leaves the caller's tools untouched", () => {
    const tools: Tool[] = [
      { name: "a", description: "A", parameters: { type: "object" } },
      { name: "b", description: "B", parameters: { type: "object" } },
    ];
    const converted = convertAnthropicTools(tools);
    expect(converted[0]).not.toHaveProperty("cache_control");
    expect(converted[1]!.cache_control).toEqual(ephemeral);
    expect(tools[1]).not.toHaveProperty("cache_control");
    expect(converted[1]!.input_schema).toBe(tools[1]!.parameters);
  });

  it("omits system for an empty system prompt and keeps an empty tools list", () => {
    const body = convertAnthropicRequest("", [], [userMessage("x")]);
    expect(body).not.toHaveProperty("system");
    expect(body.tools).toEqual([]);
  });

  it("does not modify the history", () => {
    const history: Message[] = [userMessage("x"), assistantMessage("y", [toolCall("t", "f", '{"a":1}')]), toolMessage("t", "z")];
    const before = structuredClone(history);
    convertAnthropicRequest("sys", [], history);
    expect(history).toEqual(before);
  });
});

describe("deliberate differences from upstream kosong", () => {
  it("leaves empty text blocks out: the API rejects them with 400 'text content blocks must be non-empty'", () => {
    const messages = convertAnthropicMessages([
      userMessage("q"),
      assistantMessage([textPart(""), textPart("answer")], [toolCall("t", "f", "{}")]),
      toolMessage("t", [textPart(""), textPart("ok")]),
    ]);
    expect(messages[1]!.content).toEqual([
      { type: "text", text: "answer" },
      { type: "tool_use", id: "t", name: "f", input: {} },
    ]);
    expect(messages[2]!.content[0]).toMatchObject({ content: [{ type: "text", text: "ok" }] });
  });

  it("sends unparsable or non-object tool arguments as {} (as newer upstream kosong does), so a truncated call in the history cannot block the conversation", () => {
    const messages = convertAnthropicMessages([
      assistantMessage("", [
        toolCall("t1", "make_file", '{"filename": "taxes.txt", "lines_of_text": ["# GUIDE'),
        toolCall("t2", "f", "[1, 2]"),
        toolCall("t3", "f", null),
      ]),
    ]);
    expect(messages[0]!.content.map((b) => (b.type === "tool_use" ? b.input : null))).toEqual([{}, {}, {}]);
  });

  it("tolerates raw control characters inside argument strings (as Python's json.loads(strict=False))", () => {
    expect(parseToolCallInput('{"command": "printf \'one\ntwo\'"}')).toEqual({ command: "printf 'one\ntwo'" });
    expect(parseToolCallInput('{\n  "a": "x\ty"\n}')).toEqual({ a: "x\ty" });
  });
});

describe("bad input", () => {
  it("throws a typed error for a tool message without tool_call_id", () => {
    expect(() => convertAnthropicMessages([{ role: "tool", content: [textPart("x")] }])).toThrow(ChatProviderError);
    expect(() => convertAnthropicMessages([{ role: "tool", content: [textPart("x")] }])).toThrow("Tool message missing `tool_call_id`.");
  });

  it("throws a typed error for a part the API cannot take in a tool result", () => {
    expect(() => convertAnthropicMessages([toolMessage("t", [audioURLPart("https://x/a.mp3")])])).toThrow(
      "Anthropic API does not support audio_url parts in tool results",
    );
  });

  it("converts base64 data URIs and rejects malformed or unsupported ones", () => {
    expect(convertAnthropicMessages([userMessage([imageURLPart("data:image/webp;base64,AAAA")])])[0]!.content[0]).toEqual({
      type: "image",
      source: { type: "base64", data: "AAAA", media_type: "image/webp" },
      cache_control: ephemeral,
    });
    expect(() => convertAnthropicMessages([userMessage([imageURLPart("data:image/png,rawbytes")])])).toThrow("Invalid data URL for image");
    const huge = `data:image/bmp;base64,${"A".repeat(100_000)}`;
    let message = "";
    try {
      convertAnthropicMessages([userMessage([imageURLPart(huge)])]);
    } catch (error) {
      expect(ChatProviderError.isInstance(error)).toBe(true);
      message = (error as Error).message;
    }
    expect(message).toContain("Unsupported media type for base64 image: image/bmp");
    expect(message.length).toBeLessThan(300);
  });

  it("rejects bad input before sending anything", async () => {
    const server = await startServer();
    try {
      const provider = anthropicProvider(server);
      await expect(provider.generate("", [], [{ role: "tool", content: [textPart("x")] }])).rejects.toThrow(ChatProviderError);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
