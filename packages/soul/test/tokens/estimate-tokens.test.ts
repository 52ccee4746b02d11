import { assistantMessage, imageURLPart, textPart, thinkPart, toolCall, toolMessage, userMessage, videoURLPart } from "@kosong/core";
import { charsPerTokenTokenizer, estimateMessageTokens, estimateTokens, MESSAGE_OVERHEAD_TOKENS, o200kTokenizer, TokenCounter, type Tokenizer } from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

describe("o200kTokenizer", () => {
  it("counts o200k_base tokens (reference counts from OpenAI's tiktoken)", () => {
    expect(o200kTokenizer.count("hello world")).toBe(2);
    expect(o200kTokenizer.count("The quick brown fox jumps over the lazy dog.")).toBe(10);
    expect(o200kTokenizer.count("")).toBe(0);
  });

  it("counts special-token text as plain text instead of throwing", () => {
    expect(o200kTokenizer.count("a <|endoftext|> b")).toBeGreaterThan(3);
  });

  it("counts a Chinese character as about one token where chars/4 counts a quarter", () => {
    const zh = "我们重构了解析器，现在测试通过了。上下文压缩保留用户的约束和决定。";
    expect(o200kTokenizer.count(zh)).toBeGreaterThan(zh.length / 2);
    expect(charsPerTokenTokenizer.count(zh)).toBe(Math.ceil(zh.length / 4));
  });
});

describe("estimateTokens", () => {
  it("is zero for no messages and grows with text, think parts and tool-call arguments", () => {
    expect(estimateTokens([])).toBe(0);
    const short = estimateTokens([userMessage("hi")]);
    const long = estimateTokens([userMessage("hi ".repeat(400))]);
    expect(long).toBeGreaterThan(short + 350);
    const think = estimateTokens([assistantMessage([thinkPart("let me think about the parser ".repeat(20)), textPart("ok")])]);
    expect(think).toBeGreaterThan(100);
    const args = { command: "grep -rn 'estimateTokens' packages/soul/src --include=*.ts | sort | uniq -c" };
    const withCall = estimateTokens([assistantMessage("", [toolCall("c1", "Shell", args)])]);
    expect(withCall).toBeGreaterThan(o200kTokenizer.count(JSON.stringify(args)));
  });

  it("counts media by the rule, never the bytes of a data URI", () => {
    const huge = `data:image/png;base64,${"A".repeat(200_000)}`;
    const withImage = estimateMessageTokens(userMessage([textPart("look"), imageURLPart(huge)]));
    expect(withImage).toBe(MESSAGE_OVERHEAD_TOKENS + 1 + 1000);
    const custom = estimateMessageTokens(userMessage([imageURLPart(huge), videoURLPart("https://x/v.mp4")]), {
      media: { image: 85, audio: 0, video: 10 },
    });
    expect(custom).toBe(MESSAGE_OVERHEAD_TOKENS + 95);
  });

  it("takes chars/4 as the cheap option", () => {
    const text = "x".repeat(400);
    expect(estimateTokens([userMessage(text)], { tokenizer: charsPerTokenTokenizer })).toBe(100 + MESSAGE_OVERHEAD_TOKENS);
  });
});

describe("TokenCounter", () => {
  it("equals estimateTokens and tokenizes each message once", () => {
    const seen: string[] = [];
    const counting: Tokenizer = { name: "spy", count: (text) => (seen.push(text), o200kTokenizer.count(text)) };
    const counter = new TokenCounter({ tokenizer: counting });
    const history = [userMessage("first request"), assistantMessage("first answer")];
    expect(counter.count(history)).toBe(estimateTokens(history));
    history.push(userMessage("second request"));
    seen.length = 0;
    expect(counter.count(history)).toBe(estimateTokens(history));
    expect(seen).toEqual(["second request"]);
  });
});

describe("TokenCounter's shared counts", () => {
  it("a new counter with the same tokenizer does not tokenize a history counted before; another tokenizer or media rule does", () => {
    let calls = 0;
    const tokenizer = { name: "counting", count: (text: string) => (calls++, Math.ceil(text.length / 4)) };
    const history = [userMessage("read the parser"), assistantMessage("reading", [toolCall("c1", "Read", { path: "src/parser.ts" })]), toolMessage("c1", "x".repeat(400))];
    const total = new TokenCounter({ tokenizer }).count(history);
    expect(total).toBe(estimateTokens(history, { tokenizer }));
    calls = 0;
    expect(new TokenCounter({ tokenizer }).count(history)).toBe(total);
    expect(calls).toBe(0);
    new TokenCounter({ tokenizer, media: { image: 1, audio: 1, video: 1 } }).count(history);
    expect(calls).toBeGreaterThan(0);
    calls = 0;
    new TokenCounter({ tokenizer: { ...tokenizer } }).count(history);
    expect(calls).toBeGreaterThan(0);
  });
});
