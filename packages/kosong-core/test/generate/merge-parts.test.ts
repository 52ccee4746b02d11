import { describe, expect, it } from "vitest";
import {
  audioURLPart,
  ChatProviderError,
  generate,
  imageURLPart,
  MessageMerger,
  textPart,
  thinkPart,
  toolCall,
  toolCallPart,
  type Message,
  type StreamedMessagePart,
  type StreamedToolCall,
} from "@kosong/core";
import { deepFreeze, partsProvider } from "../helpers/stream-provider.js";

function merge(parts: StreamedMessagePart[]): Message {
  const merger = new MessageMerger();
  for (const part of parts) merger.push(part);
  merger.finish();
  return merger.message;
}

function indexedCall(index: number, id: string, name: string, args: string | null = null): StreamedToolCall {
  return { ...toolCall(id, name, args), index };
}

describe("merging streamed parts", () => {
  it("merges consecutive text parts", () => {
    expect(merge([textPart("Hel"), textPart("lo"), textPart(", world")]).content).toEqual([textPart("Hello, world")]);
  });

  it("starts a new part when the type changes", () => {
    const message = merge([thinkPart("a"), textPart("b"), thinkPart("c"), textPart("d"), textPart("e")]);
    expect(message.content).toEqual([thinkPart("a"), textPart("b"), thinkPart("c"), textPart("de")]);
  });

  it("merges think parts until a signature is set, and attaches a signature-only part to the open think", () => {
    const message = merge([thinkPart("I "), thinkPart("think"), thinkPart("", "sig-1"), thinkPart("again"), thinkPart(".")]);
    expect(message.content).toEqual([thinkPart("I think", "sig-1"), thinkPart("again.")]);
  });

  it("does not merge into a think part that arrived with its signature", () => {
    const message = merge([thinkPart("whole", "enc"), thinkPart("next")]);
    expect(message.content).toEqual([thinkPart("whole", "enc"), thinkPart("next")]);
  });

  it("merges argument fragments into the open tool call", () => {
    const message = merge([toolCall("c1", "Shell", null), toolCallPart('{"command"'), toolCallPart(': "ls"}'), textPart("done")]);
    expect(message.tool_calls).toEqual([toolCall("c1", "Shell", '{"command": "ls"}')]);
    expect(message.content).toEqual([textPart("done")]);
  });

  it("keeps null arguments null through null fragments and appends to initial arguments", () => {
    expect(merge([toolCall("c1", "Think", null), toolCallPart(null)]).tool_calls![0]!.function.arguments).toBeNull();
    expect(merge([toolCall("c1", "f", '{"a"'), toolCallPart(null), toolCallPart(":1}")]).tool_calls![0]!.function.arguments).toBe(
      '{"a":1}',
    );
  });

  it("routes indexed fragments to the call with that index and never stores the index", () => {
    const message = merge([
      indexedCall(0, "c0", "a", ""),
      toolCallPart('{"x":', 0),
      toolCallPart("1}", 0),
      indexedCall(1, "c1", "b", ""),
      toolCallPart('{"y":2}', 1),
    ]);
    expect(message.tool_calls).toEqual([toolCall("c0", "a", '{"x":1}'), toolCall("c1", "b", '{"y":2}')]);
    for (const call of message.tool_calls!) expect("index" in call).toBe(false);
  });

  it("rejects a fragment for an indexed call that is already complete as a malformed stream", () => {
    const merger = new MessageMerger();
    merger.push(indexedCall(0, "c0", "a", "{}"));
    merger.push(indexedCall(1, "c1", "b", "{}"));
    expect(() => merger.push(toolCallPart("}", 0))).toThrow(ChatProviderError);
    expect(() => merger.push(toolCallPart("}", 0))).toThrow(/malformed stream.*#0 \(c0\)/);
  });

  it("merges interleaved fragments of parallel calls by index, reporting each call only when its arguments are whole", () => {
    const merger = new MessageMerger();
    const reported: string[] = [];
    const push = (part: StreamedMessagePart): void => void merger.push(part)?.forEach((c) => reported.push(`${c.id}:${c.function.arguments}`));
    push(indexedCall(0, "c0", "read", ""));
    push(toolCallPart('{"path": "a', 0));
    push(indexedCall(1, "c1", "read", ""));
    push(toolCallPart('{"path": "b.txt"}', 1));
    expect(reported).toEqual([]);
    push(toolCallPart('.txt"}', 0));
    expect(reported).toEqual(['c1:{"path": "b.txt"}']);
    push(textPart("done"));
    expect(reported).toEqual(['c1:{"path": "b.txt"}', 'c0:{"path": "a.txt"}']);
    expect(merger.message.tool_calls).toEqual([toolCall("c0", "read", '{"path": "a.txt"}'), toolCall("c1", "read", '{"path": "b.txt"}')]);
  });

  it("keeps a call whose arguments are not whole JSON open until the stream ends, and drops it when the stream breaks", () => {
    const ended = new MessageMerger();
    expect(ended.push(indexedCall(0, "c0", "f", '{"a": '))).toBeNull();
    expect(ended.push(indexedCall(1, "c1", "g", "{}"))).toBeNull();
    expect(ended.push(textPart("x"))?.map((c) => c.id)).toEqual(["c1"]);
    expect(ended.finish().map((c) => c.id)).toEqual(["c0"]);
    const broken = new MessageMerger();
    broken.push(indexedCall(0, "c0", "f", "{}"));
    broken.push(indexedCall(1, "c1", "g", '{"a": 1}'));
    expect(broken.abandon()).toBe(1);
    expect(broken.message.tool_calls).toEqual([toolCall("c0", "f", "{}")]);
  });

  it("completes a pending call when a new call starts at its index (servers that reuse index 0)", () => {
    const merger = new MessageMerger();
    merger.push(indexedCall(0, "c0", "f", ""));
    expect(merger.push(indexedCall(0, "c1", "g", "{}"))?.map((c) => c.id)).toEqual(["c0"]);
    expect(merger.finish().map((c) => c.id)).toEqual(["c1"]);
  });

  it("sends an indexed fragment to an open call streamed without index, but not to another indexed call", () => {
    expect(merge([toolCall("c1", "f", ""), toolCallPart("{}", 3)]).tool_calls).toEqual([toolCall("c1", "f", "{}")]);
    const message = merge([indexedCall(0, "c0", "f", "{"), toolCallPart("}", 0), toolCallPart("junk", 7), textPart("t")]);
    expect(message.tool_calls).toEqual([toolCall("c0", "f", "{}")]);
    expect(message.content).toEqual([textPart("t")]);
  });

  it("drops an orphan fragment, which closes the open group as in kosong", () => {
    const message = merge([textPart("a"), toolCallPart("{}"), textPart("b")]);
    expect(message.content).toEqual([textPart("a"), textPart("b")]);
    expect(message.tool_calls).toBeUndefined();
  });

  it("keeps media parts as separate parts with their ids", () => {
    const message = merge([textPart("see"), imageURLPart("i.png"), imageURLPart("j.png", "j"), audioURLPart("a.mp3")]);
    expect(message.content).toEqual([textPart("see"), imageURLPart("i.png"), imageURLPart("j.png", "j"), audioURLPart("a.mp3")]);
  });

  it("reports the call a part completes, and the last call on finish", () => {
    const merger = new MessageMerger();
    expect(merger.push(toolCall("c1", "f", "{}"))).toBeNull();
    expect(merger.push(toolCallPart(""))).toBeNull();
    const second = toolCall("c2", "g", "{}");
    expect(merger.push(second)?.map((c) => c.id)).toEqual(["c1"]);
    expect(merger.push(textPart("x"))?.map((c) => c.id)).toEqual(["c2"]);
    expect(merger.finish()).toEqual([]);
    const other = new MessageMerger();
    other.push(toolCall("c3", "h"));
    expect(other.finish().map((c) => c.id)).toEqual(["c3"]);
  });

  it("never mutates the parts it receives (frozen parts merge fine)", async () => {
    const parts: StreamedMessagePart[] = deepFreeze([
      thinkPart("a"),
      thinkPart("b"),
      thinkPart("", "sig"),
      textPart("x"),
      textPart("y"),
      indexedCall(0, "c0", "f", null),
      toolCallPart("{", 0),
      toolCallPart("}", 0),
      imageURLPart("u"),
    ]);
    const seen: StreamedMessagePart[] = [];
    const result = await generate(partsProvider(parts), "", [], [], { onMessagePart: (p) => void seen.push(p) });
    expect(result.message).toEqual({
      role: "assistant",
      content: [thinkPart("ab", "sig"), textPart("xy"), imageURLPart("u")],
      tool_calls: [toolCall("c0", "f", "{}")],
    });
    expect(seen).toHaveLength(parts.length);
    seen.forEach((part, i) => expect(part).toBe(parts[i]));
    expect(result.message.content[0]).not.toBe(parts[0]);
  });
});
