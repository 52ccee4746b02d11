/**
 * `parsedMessageRecord` validates a message once, when the record is made:
 * the record holds the validated copy, the file gets the same line as any
 * other message record, a bad message throws at once, and nothing the caller
 * does afterwards reaches the line.
 */
import { describe, expect, it } from "vitest";
import { MessageParseError, assistantMessage, toolCall, type Message } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { encodeRecord, messageRecord, parsedMessageRecord, type MessageRecord } from "@kosong/context/records";

const message = (): Message => assistantMessage("Looking.", [toolCall("c1", "Shell", { command: "ls" })]);

describe("parsedMessageRecord", () => {
  it("holds a validated copy and encodes to the same line as messageRecord", () => {
    const input = message();
    const record = parsedMessageRecord(input);
    expect(record.message).toEqual(input);
    expect(record.message).not.toBe(input);
    expect(encodeRecord(record)).toBe(encodeRecord(messageRecord(input)));
  });

  it("throws MessageParseError for an invalid message when it is made", () => {
    expect(() => parsedMessageRecord({ role: "wizard", content: "hi" })).toThrow(MessageParseError);
    expect(() => parsedMessageRecord({ role: "user", content: 42 })).toThrow(MessageParseError);
  });

  it("is frozen, and a later change to the input does not reach the file", async () => {
    const input = message();
    const record = parsedMessageRecord(input);
    expect(Object.isFrozen(record)).toBe(true);
    expect(() => {
      (record as { message: unknown }).message = { role: "user", content: 42 };
    }).toThrow(TypeError);
    (input as { content: unknown }).content = 42;
    const log = new MemoryContextLog();
    await log.append([record]);
    const state = await log.read();
    expect(state.messages).toEqual([message()]);
  });

  it("a plain record built around a message is still validated when encoded", () => {
    const record = { kind: "message" as const, message: { role: "user", content: 42 } as unknown as Message };
    expect(() => encodeRecord(record)).toThrow(MessageParseError);
  });

  it("an object made to look like one (its prototype, its fields) is still validated when encoded", () => {
    const lookalike = Object.create(Object.getPrototypeOf(parsedMessageRecord(message())) as object) as Record<string, unknown>;
    Object.defineProperties(lookalike, { kind: { value: "message" }, message: { value: { role: "user", content: 42 } } });
    expect(() => encodeRecord(lookalike as unknown as MessageRecord)).toThrow(MessageParseError);
  });
});
