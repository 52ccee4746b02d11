import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  imageURLPart,
  parseMessage,
  serializeMessage,
  textPart,
  thinkPart,
  toolCall,
  userMessage,
  type Message,
} from "@kosong/core";

describe("serializeMessage", () => {
  it("writes exactly one text part as a plain string", () => {
    expect(serializeMessage(userMessage("hi"))).toBe('{"role":"user","content":"hi"}');
  });

  it("writes several parts, a single non-text part and no part as a list", () => {
    expect(serializeMessage(userMessage([textPart("a"), textPart("b")]))).toBe(
      '{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}',
    );
    expect(serializeMessage(assistantMessage(thinkPart("hmm")))).toBe(
      '{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":null}]}',
    );
    expect(serializeMessage({ role: "assistant", content: [] })).toBe('{"role":"assistant","content":[]}');
  });

  it("omits null and undefined top-level fields", () => {
    const message = {
      role: "assistant",
      name: null,
      content: [textPart("x")],
      tool_calls: undefined,
      tool_call_id: null,
      partial: null,
    } as unknown as Message;
    expect(serializeMessage(message)).toBe('{"role":"assistant","content":"x"}');
  });

  it("keeps `encrypted: null` and media `id: null` inside a list of parts", () => {
    const line = serializeMessage(userMessage([thinkPart("t"), imageURLPart("https://x/y.png")]));
    expect(line).toBe(
      '{"role":"user","content":[{"type":"think","think":"t","encrypted":null},{"type":"image_url","image_url":{"url":"https://x/y.png","id":null}}]}',
    );
  });

  it("writes a think part's signature and a media id when set", () => {
    const line = serializeMessage(userMessage([thinkPart("t", "sig"), imageURLPart("u", "img-1")]));
    expect(line).toContain('{"type":"think","think":"t","encrypted":"sig"}');
    expect(line).toContain('{"type":"image_url","image_url":{"url":"u","id":"img-1"}}');
  });

  it("writes keys in kosong's order and drops a tool call's null arguments", () => {
    const message: Message = {
      partial: true,
      tool_call_id: "c0",
      tool_calls: [toolCall("c1", "Shell", { command: "ls" }), toolCall("c2", "Think")],
      content: [textPart("go")],
      name: "bot",
      role: "assistant",
    };
    expect(serializeMessage(message)).toBe(
      '{"role":"assistant","name":"bot","content":"go","tool_calls":[' +
        '{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\\"command\\":\\"ls\\"}"}},' +
        '{"type":"function","id":"c2","function":{"name":"Think"}}],"tool_call_id":"c0","partial":true}',
    );
  });

  it("writes non-ASCII text as raw UTF-8 and round-trips it", () => {
    const message = userMessage("你好 ✅ \u2028");
    const line = serializeMessage(message);
    expect(line).toContain("你好 ✅");
    expect(parseMessage(line)).toEqual(message);
  });

  it("keeps tool call extras verbatim", () => {
    const call = { ...toolCall("c1", "f", "{}"), extras: { thought_signature: "abc", n: [1, { x: null }] } };
    const line = serializeMessage(assistantMessage([], [call]));
    expect(line).toContain('"extras":{"thought_signature":"abc","n":[1,{"x":null}]}');
    expect(parseMessage(line).tool_calls).toEqual([call]);
  });

  it("produces one line without a trailing newline", () => {
    const line = serializeMessage(userMessage("a\nb"));
    expect(line).not.toMatch(/\n/);
    expect(parseMessage(line)).toEqual(userMessage("a\nb"));
  });
});
