/**
 * Every provider and test provider streams think parts with an explicit
 * `encrypted` (the signature, or null when unsigned), the shape `thinkPart()`
 * and `parseMessage` give, so that a streamed part, a merged message and a
 * restored message compare equal with `toEqual`.
 */
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  generate,
  parseMessage,
  serializeMessage,
  textPart,
  thinkPart,
  userMessage,
  type ChatProvider,
  type Message,
  type StreamedMessagePart,
} from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import { ChaosChatProvider, EchoChatProvider, MockChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { collectParts } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer();

/** Unsigned reasoning, then the answer; signed reasoning, then the answer. */
const reply = assistantMessage([thinkPart("Let me think."), textPart("42")]);
const signedReply = assistantMessage([thinkPart("Checked.", "sig-1"), textPart("42")]);

function thinkParts(parts: readonly StreamedMessagePart[]): StreamedMessagePart[] {
  return parts.filter((part) => part.type === "think");
}

function expectExplicitEncrypted(parts: readonly StreamedMessagePart[]): void {
  expect(parts.length).toBeGreaterThan(0);
  for (const part of parts) {
    expect(part).toHaveProperty("encrypted");
    expect(part.type === "think" && (part.encrypted === null || typeof part.encrypted === "string")).toBe(true);
  }
}

const wireProviders: Array<[string, () => ChatProvider]> = [
  ["OpenAIChatProvider", () => new OpenAIChatProvider({ model: "m", apiKey: "k", baseURL: `${server.url}/v1`, reasoningKey: "reasoning_content" })],
  ["OpenAIResponsesProvider", () => new OpenAIResponsesProvider({ model: "m", apiKey: "k", baseURL: `${server.url}/v1` })],
  ["AnthropicProvider", () => new AnthropicProvider({ model: "claude-haiku-4-5", apiKey: "k", baseURL: server.url })],
];

describe.each(wireProviders)("%s", (_, make) => {
  it("streams unsigned think parts with encrypted: null", async () => {
    server.enqueue({ message: reply });
    const parts = await collectParts(await make().generate("", [], [userMessage("hi")]));
    expectExplicitEncrypted(thinkParts(parts));
    expect(thinkParts(parts).map((p) => p.type === "think" && p.encrypted)).toContain(null);
  });

  it("generate merges them into the message thinkPart() and parseMessage build", async () => {
    server.enqueue({ message: reply });
    const { message } = await generate(make(), "", [], [userMessage("hi")]);
    expect(message.content).toEqual([thinkPart("Let me think."), textPart("42")]);
    expect(parseMessage(serializeMessage(message))).toEqual(message);
  });
});

it("AnthropicProvider keeps the signature on a signed think part", async () => {
  server.enqueue({ message: signedReply });
  const provider = new AnthropicProvider({ model: "claude-haiku-4-5", apiKey: "k", baseURL: server.url });
  const { message } = await generate(provider, "", [], [userMessage("hi")]);
  expect(message.content).toEqual(signedReply.content);
});

describe("test providers", () => {
  const bare: StreamedMessagePart[] = [{ type: "think", think: "hmm" }, textPart("ok")];
  const providers: Array<[string, () => ChatProvider]> = [
    ["MockChatProvider", () => new MockChatProvider(bare)],
    ["MockChatProvider in chunks", () => new MockChatProvider(bare, { chunkSize: 2 })],
    ["EchoChatProvider", () => new EchoChatProvider()],
    ["ScriptedChatProvider", () => new ScriptedChatProvider(["think: hmm\ntext: ok"])],
    ["ChaosChatProvider", () => new ChaosChatProvider(new MockChatProvider(bare), { errorProbability: 0 })],
  ];
  const echoHistory: Message[] = [userMessage("think: hmm\ntext: ok")];

  it.each(providers)("%s streams think parts with an explicit encrypted, even when given none", async (_, make) => {
    const parts = await collectParts(await make().generate("", [], echoHistory));
    expectExplicitEncrypted(thinkParts(parts));
    const { message } = await generate(make(), "", [], echoHistory);
    expect(message.content).toEqual([thinkPart("hmm"), textPart("ok")]);
  });
});
