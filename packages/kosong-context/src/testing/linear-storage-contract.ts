/**
 * The behaviour every {@link LinearStorage} owes its users, as a vitest
 * suite that any implementation can run against itself.
 */
import { describe, expect, it } from "vitest";
import { MessageParseError, type Message } from "@kosong/core";
import { InvalidRecordError, StorageClosedError } from "../errors.js";
import type { LinearStorage } from "../linear-storage.js";
import { assistant, lines, tool, user } from "./sample-messages.js";

/** A storage under test, and how to get it back after closing it. */
export interface LinearStorageHarness {
  /** A fresh, empty storage. */
  storage: LinearStorage;
  /**
   * Closes `storage` (if the harness needs to) and returns a new storage
   * over the same data, restored: its `messages` and `tokenCount` must equal
   * the old one's. Each call reopens the latest storage returned.
   */
  reopen: () => Promise<LinearStorage>;
  /** Releases what the harness created (files, directories). */
  cleanup?: () => Promise<void>;
}

/**
 * Registers a `describe` block that checks `factory`'s storages against the
 * LinearStorage contract: order, token marks, validation, restore
 * equivalence, concurrency and close. Call it at the top level of a test
 * file; `factory` runs once per test.
 */
export function describeLinearStorageContract(name: string, factory: () => LinearStorageHarness | Promise<LinearStorageHarness>): void {
  async function withHarness(run: (harness: LinearStorageHarness) => Promise<void>): Promise<void> {
    const harness = await factory();
    try {
      await run(harness);
    } finally {
      await harness.storage.close().catch(() => undefined);
      await harness.cleanup?.();
    }
  }

  describe(`LinearStorage contract: ${name}`, () => {
    it("starts empty", () =>
      withHarness(async ({ storage }) => {
        expect(storage.messages).toEqual([]);
        expect(storage.tokenCount).toBe(0);
      }));

    it("keeps messages in append order, single and batched", () =>
      withHarness(async ({ storage }) => {
        await storage.appendMessage(user("hello"));
        await storage.appendMessages([assistant(1), tool(1)]);
        await storage.appendMessage(assistant(2));
        expect(lines(storage.messages)).toEqual(lines([user("hello"), assistant(1), tool(1), assistant(2)]));
        await storage.appendMessages([]);
        expect(storage.messages).toHaveLength(4);
      }));

    it("keeps the latest token mark", () =>
      withHarness(async ({ storage }) => {
        await storage.markTokenCount(10);
        await storage.appendMessage(user("a"));
        await storage.markTokenCount(25);
        expect(storage.tokenCount).toBe(25);
        await storage.markTokenCount(3);
        expect(storage.tokenCount).toBe(3);
        expect(storage.messages).toHaveLength(1);
      }));

    it("stores a copy: changing the appended object later changes nothing stored", () =>
      withHarness(async ({ storage, reopen }) => {
        const message = user("original");
        await storage.appendMessage(message);
        (message.content[0] as { text: string }).text = "changed";
        message.role = "assistant";
        expect(lines(storage.messages)).toEqual(lines([user("original")]));
        const reopened = await reopen();
        expect(lines(reopened.messages)).toEqual(lines([user("original")]));
      }));

    it("rejects an invalid message with MessageParseError and stores nothing of that call", () =>
      withHarness(async ({ storage, reopen }) => {
        await storage.appendMessage(user("kept"));
        const bad = { role: "robot", content: [] } as unknown as Message;
        await expect(storage.appendMessage(bad)).rejects.toSatisfy(MessageParseError.isInstance);
        await expect(storage.appendMessages([user("not kept"), bad])).rejects.toSatisfy(MessageParseError.isInstance);
        const badPart = { role: "user", content: [{ type: "sound", data: "" }] } as unknown as Message;
        await expect(storage.appendMessage(badPart)).rejects.toSatisfy(MessageParseError.isInstance);
        await storage.appendMessage(user("after"));
        expect(lines(storage.messages)).toEqual(lines([user("kept"), user("after")]));
        const reopened = await reopen();
        expect(lines(reopened.messages)).toEqual(lines([user("kept"), user("after")]));
      }));

    it("rejects a token count that is not a non-negative integer with InvalidRecordError", () =>
      withHarness(async ({ storage }) => {
        await storage.markTokenCount(5);
        for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "7" as unknown as number]) {
          await expect(storage.markTokenCount(bad)).rejects.toSatisfy(InvalidRecordError.isInstance);
        }
        expect(storage.tokenCount).toBe(5);
      }));

    it("restores to an equivalent storage: same messages (same JSON), same token count", () =>
      withHarness(async ({ storage, reopen }) => {
        const sent: Message[] = [user("hello")];
        await storage.appendMessage(sent[0]!);
        await storage.markTokenCount(100);
        for (let i = 0; i < 5; i += 1) {
          sent.push(assistant(i), tool(i));
          await storage.appendMessages([assistant(i), tool(i)]);
          await storage.markTokenCount(100 + i);
        }
        const reopened = await reopen();
        expect(reopened.messages).toEqual(storage.messages);
        expect(lines(reopened.messages)).toEqual(lines(sent));
        expect(reopened.tokenCount).toBe(104);

        await reopened.appendMessage(user("continued"));
        await reopened.markTokenCount(200);
        const again = await reopen();
        expect(lines(again.messages)).toEqual(lines([...sent, user("continued")]));
        expect(again.tokenCount).toBe(200);
      }));

    it("keeps call order for concurrent appends and marks", () =>
      withHarness(async ({ storage, reopen }) => {
        const expected: Message[] = [];
        const pending: Array<Promise<void>> = [];
        for (let i = 0; i < 200; i += 1) {
          const m = i % 3 === 0 ? user(`u${i}`) : i % 3 === 1 ? assistant(i) : tool(i);
          expected.push(m);
          pending.push(i % 10 === 9 ? storage.appendMessages([m]) : storage.appendMessage(m));
          if (i % 7 === 0) pending.push(storage.markTokenCount(i));
        }
        await Promise.all(pending);
        expect(lines(storage.messages)).toEqual(lines(expected));
        expect(storage.tokenCount).toBe(196);
        const reopened = await reopen();
        expect(lines(reopened.messages)).toEqual(lines(expected));
        expect(reopened.tokenCount).toBe(196);
      }));

    it("close waits for pending appends; later appends reject with StorageClosedError; closing twice is fine", () =>
      withHarness(async ({ storage, reopen }) => {
        const pending = [storage.appendMessage(user("a")), storage.appendMessages([user("b"), user("c")]), storage.markTokenCount(9)];
        await storage.close();
        await Promise.all(pending);
        expect(lines(storage.messages)).toEqual(lines([user("a"), user("b"), user("c")]));
        await expect(storage.appendMessage(user("late"))).rejects.toSatisfy(StorageClosedError.isInstance);
        await expect(storage.markTokenCount(1)).rejects.toSatisfy(StorageClosedError.isInstance);
        await storage.close();
        const reopened = await reopen();
        expect(lines(reopened.messages)).toEqual(lines([user("a"), user("b"), user("c")]));
        expect(reopened.tokenCount).toBe(9);
      }));
  });
}
