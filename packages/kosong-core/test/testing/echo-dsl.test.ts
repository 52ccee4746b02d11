import {
  APIConnectionError,
  APIContextOverflowError,
  APIStatusError,
  APITimeoutError,
  ChatProviderError,
} from "@kosong/core";
import { parseEchoScript } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";

function parseError(script: string): ChatProviderError {
  try {
    parseEchoScript(script);
  } catch (error) {
    expect(ChatProviderError.isInstance(error)).toBe(true);
    return error as ChatProviderError;
  }
  throw new Error("expected the script to be rejected");
}

describe("echo DSL kinds", () => {
  it("reads kosong's documented example", () => {
    const script = [
      "id: echo-42",
      'usage: {"input_other": 10, "output": 2}',
      "think: thinking...",
      "text: Hello,",
      "text:  world!",
      'image_url: {"url": "https://example.com/image.png", "id": "img-1"}',
      String.raw`tool_call: {"id": "call-1", "name": "search", "arguments": "{\"query"}`,
      String.raw`tool_call_part: {"arguments_part": "\": \"what time is"}`,
      String.raw`tool_call_part: {"arguments_part": " it?\"}"}`,
    ].join("\n");
    const parsed = parseEchoScript(script);
    expect(parsed.id).toBe("echo-42");
    expect(parsed.usage).toEqual({ input_other: 10, output: 2, input_cache_read: 0, input_cache_creation: 0 });
    expect(parsed.error).toBeNull();
    expect(parsed.finishReason).toBeNull();
    expect(parsed.parts).toEqual([
      { type: "think", think: "thinking...", encrypted: null },
      { type: "text", text: "Hello," },
      { type: "text", text: " world!" },
      { type: "image_url", image_url: { url: "https://example.com/image.png", id: "img-1" } },
      { type: "function", id: "call-1", function: { name: "search", arguments: '{"query' } },
      { type: "tool_call_part", arguments_part: '": "what time is' },
      { type: "tool_call_part", arguments_part: ' it?"}' },
    ]);
  });

  it("skips blank lines, comments, fences and a bare echo line; kinds are case-insensitive", () => {
    const parsed = parseEchoScript("```\necho\n\n   # a comment\nTEXT: hi\n  Think : hmm\n```");
    expect(parsed.parts).toEqual([
      { type: "text", text: "hi" },
      { type: "think", think: "hmm", encrypted: null },
    ]);
  });

  it("splits lines on CRLF, CR and the other line breaks Python knows", () => {
    const parsed = parseEchoScript("text: a\r\ntext: b\rtext: c\u2028text: d");
    expect(parsed.parts.map((p) => (p.type === "text" ? p.text : null))).toEqual(["a", "b", "c", "d"]);
  });

  it("drops one space after the colon, keeps the rest, and strips matching quotes from text and think", () => {
    const parsed = parseEchoScript(['text: "  padded  "', "text:   two spaces", "think: 'quoted'", "text:", 'text: "unbalanced']
      .join("\n"));
    expect(parsed.parts).toEqual([
      { type: "text", text: "  padded  " },
      { type: "text", text: "  two spaces" },
      { type: "think", think: "quoted", encrypted: null },
      { type: "text", text: "" },
      { type: "text", text: '"unbalanced' },
    ]);
  });

  it("reads id with or without quotes", () => {
    expect(parseEchoScript("id: 'abc'\ntext: x").id).toBe("abc");
    expect(parseEchoScript("id:   spaced  \ntext: x").id).toBe("spaced");
  });

  it("reads usage as JSON or key=value tokens, missing counters being 0", () => {
    expect(parseEchoScript("usage: input_other=1 output=2 input_cache_read=3\ntext: x").usage).toEqual({
      input_other: 1,
      output: 2,
      input_cache_read: 3,
      input_cache_creation: 0,
    });
    expect(parseEchoScript("usage: input_other=1,output=2, input_cache_creation=4\ntext: x").usage).toEqual({
      input_other: 1,
      output: 2,
      input_cache_read: 0,
      input_cache_creation: 4,
    });
    // Python's int(): numeric strings, floats truncated, booleans.
    expect(parseEchoScript('usage: {"input_other": "12", "output": 7.9, "input_cache_read": true}\ntext: x').usage).toEqual({
      input_other: 12,
      output: 7,
      input_cache_read: 1,
      input_cache_creation: 0,
    });
  });

  it("reads media parts from a raw URL, a quoted URL or an object", () => {
    const parsed = parseEchoScript(
      [
        "image_url: https://example.com/a.png",
        'audio_url: {"url": "https://example.com/a.mp3", "id": "aud-1"}',
        "video_url: 'https://example.com/v.mp4'",
        'image_url: {"url": "data:image/png;base64,AAAA", "id": null}',
      ].join("\n"),
    );
    expect(parsed.parts).toEqual([
      { type: "image_url", image_url: { url: "https://example.com/a.png", id: null } },
      { type: "audio_url", audio_url: { url: "https://example.com/a.mp3", id: "aud-1" } },
      { type: "video_url", video_url: { url: "https://example.com/v.mp4", id: null } },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", id: null } },
    ]);
  });

  it("reads tool calls as JSON, key=value, or with a function object and extras", () => {
    const parsed = parseEchoScript(
      [
        'tool_call: {"id": "c1", "name": "ls"}',
        `tool_call: id=c2 name=read arguments='{"path":"a.txt"}'`,
        'tool_call: {"id": "c3", "function": {"name": "grep", "arguments": "{}", "extras": {"k": 1}}}',
        'tool_call: {"id": "c4", "name": "x", "arguments": "{}", "extras": {"thought_signature": "sig"}}',
        'tool_call: {"id": "c5", "name": "", "function": {"name": "fallback"}}',
        'tool_call: {"id": "c6", "name": "y", "extras": "not an object"}',
      ].join("\n"),
    );
    expect(parsed.parts).toEqual([
      { type: "function", id: "c1", function: { name: "ls", arguments: null } },
      { type: "function", id: "c2", function: { name: "read", arguments: '{"path":"a.txt"}' } },
      { type: "function", id: "c3", function: { name: "grep", arguments: "{}" }, extras: { k: 1 } },
      { type: "function", id: "c4", function: { name: "x", arguments: "{}" }, extras: { thought_signature: "sig" } },
      { type: "function", id: "c5", function: { name: "fallback", arguments: null } },
      { type: "function", id: "c6", function: { name: "y", arguments: null } },
    ]);
    expect("extras" in parsed.parts[0]!).toBe(false);
  });

  it("reads argument fragments as JSON objects, raw text or null", () => {
    const parsed = parseEchoScript(
      [
        'tool_call: {"id": "c1", "name": "f"}',
        'tool_call_part: {"arguments_part": "{\\"a\\""}',
        "tool_call_part: : 1}",
        "tool_call_part: null",
        "tool_call_part: ",
        'tool_call_part: {"arguments_part": {"b": "é", "c": [1, 2]}}',
        "tool_call_part: {}",
        "tool_call_part: 42",
      ].join("\n"),
    );
    expect(parsed.parts.slice(1)).toEqual([
      { type: "tool_call_part", arguments_part: '{"a"' },
      { type: "tool_call_part", arguments_part: ": 1}" },
      { type: "tool_call_part", arguments_part: null },
      { type: "tool_call_part", arguments_part: null },
      { type: "tool_call_part", arguments_part: '{"b":"\\u00e9","c":[1,2]}' },
      { type: "tool_call_part", arguments_part: null },
      { type: "tool_call_part", arguments_part: "42" },
    ]);
  });

  it("reads finish_reason (an addition to kosong's DSL)", () => {
    expect(parseEchoScript("text: cut\nfinish_reason: max_tokens").finishReason).toBe("max_tokens");
  });

  describe("error", () => {
    it("describes a status error with kosong's default message, or the given one", () => {
      const plain = parseEchoScript("error: 503").error;
      expect(APIStatusError.isInstance(plain)).toBe(true);
      expect((plain as APIStatusError).statusCode).toBe(503);
      expect(plain!.message).toBe("Simulated 503 error");
      const withMessage = parseEchoScript("error: 500   Internal failure  ").error as APIStatusError;
      expect(withMessage.statusCode).toBe(500);
      expect(withMessage.message).toBe("Internal failure");
    });

    it("takes retry_after, retry_after_ms, type, code and request_id before the message", () => {
      const error = parseEchoScript("error: 429 retry_after=1.5 code=rate_limit_exceeded request_id=req-1 Slow down").error as APIStatusError;
      expect(error.statusCode).toBe(429);
      expect(error.retryAfterMs).toBe(1500);
      expect(error.errorCode).toBe("rate_limit_exceeded");
      expect(error.requestId).toBe("req-1");
      expect(error.message).toBe("Slow down");
      const ms = parseEchoScript("error: 529 retry_after_ms=20 type=overloaded_error").error as APIStatusError;
      expect(ms.retryAfterMs).toBe(20);
      expect(ms.errorType).toBe("overloaded_error");
      expect(ms.message).toBe("Simulated 529 error");
    });

    it("classifies a status error as a provider would (context overflow)", () => {
      const error = parseEchoScript("error: 400 prompt is too long: 250000 tokens > 200000 maximum").error;
      expect(APIContextOverflowError.isInstance(error)).toBe(true);
    });

    it("describes connection errors and timeouts", () => {
      const connection = parseEchoScript("error: connection").error;
      expect(APIConnectionError.isInstance(connection)).toBe(true);
      expect(connection!.message).toBe("Simulated connection error");
      expect(parseEchoScript("error: Connection reset by peer").error!.message).toBe("reset by peer");
      const timeout = parseEchoScript("error: TIMEOUT").error;
      expect(APITimeoutError.isInstance(timeout)).toBe(true);
      expect(timeout!.message).toBe("Simulated timeout error");
      expect(parseEchoScript("error: timeout took too long").error!.message).toBe("took too long");
    });

    it("keeps the parts before it and ignores every line after it", () => {
      const parsed = parseEchoScript("text: partial\nerror: connection\nthis line is not even valid");
      expect(parsed.parts).toEqual([{ type: "text", text: "partial" }]);
      expect(APIConnectionError.isInstance(parsed.error)).toBe(true);
    });
  });
});

describe("echo DSL error messages (kosong's, word for word)", () => {
  const cases: Array<[string, string]> = [
    ["text: ok\nno colon here", "Invalid echo DSL at line 2: 'no colon here'"],
    ["  it's broken  ", `Invalid echo DSL at line 1: "  it's broken  "`],
    ["mystery: payload", "Unknown echo DSL kind 'mystery' at line 1: 'mystery: payload'"],
    ["\n\nTool_Calls: x\t", "Unknown echo DSL kind 'tool_calls' at line 3: 'Tool_Calls: x\\t'"],
    ["usage: output=many", "Usage field 'output' must be an integer, got 'many'"],
    ['usage: {"input_other": null}', "Usage field 'input_other' must be an integer, got None"],
    ['usage: {"output": [1]}', "Usage field 'output' must be an integer, got [1]"],
    ['usage: {"output": "1.5"}', "Usage field 'output' must be an integer, got '1.5'"],
    ["usage: [1, 2]", "usage payload must be an object, got [1, 2]"],
    ["usage: 5", "usage payload must be an object, got 5"],
    ["usage: input_other=1 oops", "Invalid token 'oops' in usage payload."],
    ["usage: null", "Invalid token 'null' in usage payload."],
    ["usage:", "usage payload cannot be empty."],
    ["usage:  , ", "usage payload cannot be empty."],
    ['image_url: {"id": "x"}', "image_url requires a url field, got {'id': 'x'}"],
    ['image_url: {"url": 1, "ok": true, "n": null}', "image_url requires a url field, got {'url': 1, 'ok': True, 'n': None}"],
    ['audio_url: {"url": "u", "id": 7}', "audio_url id must be a string when provided."],
    ["video_url: 42", "video_url expects url string or object, got 42"],
    ["video_url:", "video_url expects url string or object, got None"],
    ['image_url: ["a"]', "image_url expects url string or object, got ['a']"],
    ['tool_call: {"id": "c1"}', `tool_call requires string id and name at line 1: 'tool_call: {"id": "c1"}'`],
    ['tool_call: {"id": 1, "name": "f"}', `tool_call requires string id and name at line 1: 'tool_call: {"id": 1, "name": "f"}'`],
    ['tool_call: {"id": "c", "name": "f", "arguments": {"a": 1}}', "tool_call.arguments must be a string at line 1, got dict"],
    ['tool_call: {"id": "c", "name": "f", "arguments": 3}', "tool_call.arguments must be a string at line 1, got int"],
    ['tool_call: {"id": "c", "function": {"name": "f", "arguments": [1]}}', "tool_call.arguments must be a string at line 1, got list"],
    ['tool_call: id=c name=f arguments={"path":"a.txt"}', "tool_call.arguments must be a string at line 1, got dict"],
    ['tool_call: "just a string"', "tool_call payload must be an object, got 'just a string'"],
    ["tool_call: id=c name", "Invalid token 'name' in tool_call payload."],
    ["error:", "Empty error payload at line 1: 'error:'"],
    ["text: x\nerror:    ", "Empty error payload at line 2: 'error:    '"],
    ["error: boom now", "Invalid error spec at line 1: expected status code or 'connection'/'timeout', got 'boom'"],
  ];

  it.each(cases)("%j", (script, message) => {
    const error = parseError(script);
    expect(error.message).toBe(message);
  });

  it("rejects an unknown finish_reason and a bad retry hint", () => {
    expect(parseError("finish_reason: done").message).toBe(
      "finish_reason must be one of stop, tool_calls, max_tokens, content_filter, refusal, error, other, got 'done'",
    );
    expect(parseError("error: 429 retry_after=soon").message).toBe(
      "Invalid retry_after at line 1: expected a non-negative number, got 'soon'",
    );
  });

  it("quotes raw lines as Python's repr does (control and invisible characters escaped)", () => {
    expect(parseError("bad\u0007 \u00a0line\u200b \\").message).toBe("Invalid echo DSL at line 1: 'bad\\x07 \\xa0line\\u200b \\\\'");
    expect(parseError(`say "it's"`).message).toBe(`Invalid echo DSL at line 1: 'say "it\\'s"'`);
  });
});
