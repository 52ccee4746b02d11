/**
 * The behaviour every {@link ContextLog} owes a checkpointed context, as a
 * vitest suite that any implementation (a file, memory, a database) runs
 * against itself.
 */
import { describe, expect, it } from "vitest";
import { MessageParseError, type Message } from "@kosong/core";
import type { ContextLog, ContextLogState } from "../context-log.js";
import { checkpointRecord, messageRecord, otherRecord, systemPromptRecord, usageRecord, type ContextRecord } from "../context-record.js";
import { InvalidOffsetError, InvalidRecordError, RotationNotFoundError, StorageClosedError } from "../errors.js";
import { assistant, lines, tool, user } from "./sample-messages.js";

/** A log under test, and how to get it back after closing it. */
export interface ContextLogHarness {
  /** A fresh, empty log. */
  log: ContextLog;
  /**
   * For logs that persist: closes the latest log returned and opens a new
   * one over the same data (rotations included). Without it, the
   * persistence tests are skipped.
   */
  reopen?: () => Promise<ContextLog>;
  /** Releases what the harness created (files, directories, tables). */
  cleanup?: () => Promise<void>;
}

/** The part of a state that a revert or a restore must reproduce. */
function summary(state: ContextLogState) {
  return {
    messages: lines(state.messages),
    tokenCount: state.tokenCount,
    messagesBeforeLastUsage: state.messagesBeforeLastUsage,
    systemPrompt: state.systemPrompt,
    nextCheckpointId: state.nextCheckpointId,
    checkpoints: state.checkpoints.map(({ position: _, ...rest }) => rest),
    otherRecords: state.otherRecords,
  };
}

/**
 * A kimi-cli style turn log: a system prompt, then three turns of
 * checkpoint (labelled "turn N"), user message, assistant + tool result,
 * token count.
 */
async function seed(log: ContextLog): Promise<void> {
  await log.append([systemPromptRecord("You are a test.")]);
  for (let i = 0; i < 3; i += 1) {
    await log.append([checkpointRecord(i, `turn ${i}`)]);
    await log.append([messageRecord(user(`question ${i}`))]);
    await log.append([messageRecord(assistant(i)), messageRecord(tool(i)), usageRecord(100 * (i + 1))]);
  }
}

async function rejectsWith(promise: Promise<unknown>, is: (error: unknown) => boolean): Promise<void> {
  await expect(promise).rejects.toSatisfy(is);
}

/**
 * Registers a `describe` block that checks `factory`'s logs against the
 * ContextLog contract: positions, order, validation, the folded state with
 * checkpoints and labels, truncate-with-rotation, prepend, rotations and
 * their restore, truncation with records written in the same step, close,
 * and (with `reopen`) persistence. Call it at the top
 * level of a test file; `factory` runs once per test.
 */
export function describeContextLogContract(name: string, factory: () => ContextLogHarness | Promise<ContextLogHarness>): void {
  async function withHarness(run: (harness: ContextLogHarness) => Promise<void>): Promise<void> {
    const harness = await factory();
    try {
      await run(harness);
    } finally {
      await harness.log.close().catch(() => undefined);
      await harness.cleanup?.();
    }
  }

  describe(`ContextLog contract: ${name}`, () => {
    describe("append", () => {
      it("starts empty, at position 0", () =>
        withHarness(async ({ log }) => {
          const state = await log.read();
          expect(summary(state)).toEqual(summary({ ...state, messages: [], tokenCount: 0, messagesBeforeLastUsage: 0, systemPrompt: null, nextCheckpointId: 0, checkpoints: [], otherRecords: 0 }));
          expect(state.report.skipped).toEqual([]);
          const receipt = await log.append([messageRecord(user("first"))]);
          expect(receipt.position).toBe(0);
          expect(receipt.end).toBeGreaterThan(0);
        }));

      it("returns contiguous receipts: each append starts where the previous one ended", () =>
        withHarness(async ({ log }) => {
          const a = await log.append([messageRecord(user("a"))]);
          const b = await log.append([checkpointRecord(0), messageRecord(assistant(1)), usageRecord(5)]);
          const c = await log.append([messageRecord(tool(1))]);
          expect(b.position).toBe(a.end);
          expect(c.position).toBe(b.end);
          expect(b.end).toBeGreaterThan(b.position);
        }));

      it("keeps call order for appends that do not wait for each other", () =>
        withHarness(async ({ log }) => {
          const expected: Message[] = [];
          const pending: Array<ReturnType<ContextLog["append"]>> = [];
          for (let i = 0; i < 150; i += 1) {
            const m = i % 3 === 0 ? user(`u${i}`) : i % 3 === 1 ? assistant(i) : tool(i);
            expected.push(m);
            pending.push(log.append(i % 5 === 4 ? [messageRecord(m), usageRecord(i)] : [messageRecord(m)]));
          }
          const state = await log.read();
          expect(lines(state.messages)).toEqual(lines(expected));
          expect(state.tokenCount).toBe(149);
          const receipts = await Promise.all(pending);
          for (let i = 1; i < receipts.length; i += 1) expect(receipts[i]!.position).toBe(receipts[i - 1]!.end);
        }));

      it("rejects a call with an invalid record whole: nothing of it is stored", () =>
        withHarness(async ({ log }) => {
          const kept = await log.append([messageRecord(user("kept"))]);
          const badMessage = { role: "robot", content: [] } as unknown as Message;
          await rejectsWith(log.append([messageRecord(user("not kept")), messageRecord(badMessage)]), MessageParseError.isInstance);
          const invalid: ContextRecord[][] = [
            [usageRecord(-1)],
            [usageRecord(1.5)],
            [checkpointRecord(-2)],
            [checkpointRecord(3, 7 as unknown as string)],
            [systemPromptRecord(null as unknown as string)],
            [otherRecord({ role: "no underscore" })],
            [otherRecord({ role: "_usage", token_count: 3 })],
          ];
          for (const records of invalid) {
            await rejectsWith(log.append([messageRecord(user("not kept either")), ...records]), InvalidRecordError.isInstance);
          }
          const next = await log.append([messageRecord(user("after"))]);
          expect(next.position).toBe(kept.end);
          const state = await log.read();
          expect(lines(state.messages)).toEqual(lines([user("kept"), user("after")]));
          expect(state.checkpoints).toEqual([]);
          expect(state.tokenCount).toBe(0);
        }));

      it("stores a copy: changing an appended message later changes nothing stored", () =>
        withHarness(async ({ log }) => {
          const message = user("original");
          await log.append([messageRecord(message)]);
          (message.content[0] as { text: string }).text = "changed";
          const state = await log.read();
          expect(lines(state.messages)).toEqual(lines([user("original")]));
          (state.messages[0]!.content[0] as { text: string }).text = "changed after reading";
          expect(lines((await log.read()).messages)).toEqual(lines([user("original")]));
        }));
    });

    describe("read", () => {
      it("folds the records as kimi-cli restores its context: messages, last usage, last system prompt, next checkpoint id", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          await log.append([otherRecord({ role: "_note", text: "kept, ignored" }), messageRecord(user("pending"))]);
          const state = await log.read();
          expect(lines(state.messages)).toEqual(
            lines([user("question 0"), assistant(0), tool(0), user("question 1"), assistant(1), tool(1), user("question 2"), assistant(2), tool(2), user("pending")]),
          );
          expect(state.tokenCount).toBe(300);
          expect(state.messagesBeforeLastUsage).toBe(9);
          expect(state.systemPrompt).toBe("You are a test.");
          expect(state.nextCheckpointId).toBe(3);
          expect(state.otherRecords).toBe(1);
          expect(state.report.skipped).toEqual([]);
        }));

      it("lists every checkpoint with its label, its position and the state just before it", () =>
        withHarness(async ({ log }) => {
          await log.append([systemPromptRecord("prompt")]);
          const first = await log.append([checkpointRecord(0, "start ✓")]);
          await log.append([messageRecord(user("q")), usageRecord(42)]);
          const second = await log.append([checkpointRecord(1)]);
          const { checkpoints } = await log.read();
          expect(checkpoints).toEqual([
            { id: 0, label: "start ✓", position: first.position, messageCount: 0, tokenCount: 0, messagesBeforeLastUsage: 0, systemPrompt: "prompt", nextCheckpointId: 0 },
            { id: 1, position: second.position, messageCount: 1, tokenCount: 42, messagesBeforeLastUsage: 1, systemPrompt: "prompt", nextCheckpointId: 1 },
          ]);
          expect("label" in checkpoints[1]!).toBe(false);
        }));
    });

    describe("truncateAndRotate", () => {
      it("at a checkpoint's position reverts to the state before it, and keeps the whole old log as rotation 1", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = await log.read();
          const mark = before.checkpoints.find((c) => c.id === 1)!;
          const rotation = await log.truncateAndRotate(mark.position);
          expect(rotation.n).toBe(1);
          const after = await log.read();
          expect(lines(after.messages)).toEqual(lines(before.messages.slice(0, mark.messageCount)));
          expect([after.tokenCount, after.systemPrompt, after.nextCheckpointId]).toEqual([mark.tokenCount, mark.systemPrompt, mark.nextCheckpointId]);
          expect(after.checkpoints).toEqual(before.checkpoints.filter((c) => c.id < 1));
          expect((await log.listRotations()).map((r) => [r.n, r.location])).toEqual([[1, rotation.location]]);
        }));

      it("continues at the truncated position: the next append starts there", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const mark = (await log.read()).checkpoints[2]!;
          await log.truncateAndRotate(mark.position);
          const receipt = await log.append([checkpointRecord(2, "again")]);
          expect(receipt.position).toBe(mark.position);
          const state = await log.read();
          expect(state.checkpoints.at(-1)).toMatchObject({ id: 2, label: "again", position: mark.position });
        }));

      it("at 0 clears the log (kimi-cli's clear); each rotation takes the next number", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const full = summary(await log.read());
          const first = await log.truncateAndRotate((await log.read()).checkpoints[1]!.position);
          const second = await log.truncateAndRotate(0);
          expect([first.n, second.n]).toEqual([1, 2]);
          const cleared = await log.read();
          expect(summary(cleared)).toEqual(summary({ ...cleared, messages: [], tokenCount: 0, messagesBeforeLastUsage: 0, systemPrompt: null, nextCheckpointId: 0, checkpoints: [], otherRecords: 0 }));
          expect((await log.listRotations()).map((r) => r.n)).toEqual([1, 2]);
          await log.restoreRotation(1);
          expect(summary(await log.read())).toEqual(full);
        }));

      it("writes records after the kept prefix in the same step: positions locate them, appends continue at the end", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = await log.read();
          const mark = before.checkpoints.find((c) => c.id === 1)!;
          const truncation = await log.truncateAndRotate(mark.position, [checkpointRecord(1, "again"), messageRecord(user("instead")), usageRecord(7)]);
          expect(truncation.n).toBe(1);
          expect(truncation.positions).toHaveLength(3);
          expect(truncation.positions[0]).toBe(mark.position);
          const after = await log.read();
          expect(lines(after.messages)).toEqual(lines([...before.messages.slice(0, mark.messageCount), user("instead")]));
          expect([after.tokenCount, after.messagesBeforeLastUsage, after.nextCheckpointId]).toEqual([7, mark.messageCount + 1, 2]);
          expect(after.checkpoints.at(-1)).toMatchObject({ id: 1, label: "again", position: truncation.positions[0] });
          const next = await log.append([messageRecord(assistant(9))]);
          expect(next.position).toBe(truncation.end);
          // The new checkpoint's position reverts to it like any other.
          await log.truncateAndRotate(truncation.positions[0]!);
          expect(lines((await log.read()).messages)).toEqual(lines(before.messages.slice(0, mark.messageCount)));
          await log.restoreRotation(1);
          expect(summary(await log.read())).toEqual(summary(before));
        }));

      it("at 0 with records replaces the whole log (a compaction: system prompt, checkpoint, messages), the old log kept", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const full = summary(await log.read());
          const truncation = await log.truncateAndRotate(0, [systemPromptRecord("You are a test."), checkpointRecord(0), messageRecord(user("summary")), messageRecord(assistant(3))]);
          expect(truncation.positions[0]).toBe(0);
          const state = await log.read();
          expect(lines(state.messages)).toEqual(lines([user("summary"), assistant(3)]));
          expect([state.systemPrompt, state.nextCheckpointId, state.tokenCount]).toEqual(["You are a test.", 1, 0]);
          expect(state.checkpoints).toEqual([expect.objectContaining({ id: 0, position: truncation.positions[1], messageCount: 0, systemPrompt: "You are a test." })]);
          expect((await log.listRotations()).map((r) => r.n)).toEqual([truncation.n]);
          await log.restoreRotation(truncation.n);
          expect(summary(await log.read())).toEqual(full);
        }));

      it("reads a rotation without changing the log; an unknown rotation is RotationNotFoundError", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const full = summary(await log.read());
          const truncation = await log.truncateAndRotate(0, [systemPromptRecord("You are a test."), checkpointRecord(0), messageRecord(user("summary"))]);
          const after = summary(await log.read());
          expect(summary(await log.readRotation(truncation.n))).toEqual(full);
          expect(summary(await log.read())).toEqual(after);
          expect((await log.listRotations()).map((r) => r.n)).toEqual([truncation.n]);
          await rejectsWith(log.readRotation(truncation.n + 1), RotationNotFoundError.isInstance);
        }));

      it("rejects a call with an invalid record whole: the log is unchanged and no rotation is made", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = summary(await log.read());
          const mark = (await log.read()).checkpoints[1]!.position;
          const badMessage = { role: "robot", content: [] } as unknown as Message;
          await rejectsWith(log.truncateAndRotate(0, [systemPromptRecord("ok"), messageRecord(badMessage)]), MessageParseError.isInstance);
          await rejectsWith(log.truncateAndRotate(mark, [checkpointRecord(1), usageRecord(-3)]), InvalidRecordError.isInstance);
          expect(summary(await log.read())).toEqual(before);
          expect(await log.listRotations()).toEqual([]);
        }));

      it("rejects a position it did not give out with InvalidOffsetError and changes nothing", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = summary(await log.read());
          const { end } = await log.append([]);
          for (const bad of [-1, 1.5, Number.NaN, end + 1, Number.MAX_SAFE_INTEGER]) {
            await rejectsWith(log.truncateAndRotate(bad), InvalidOffsetError.isInstance);
          }
          expect(summary(await log.read())).toEqual(before);
          expect(await log.listRotations()).toEqual([]);
        }));
    });

    describe("prepend", () => {
      it("writes records before the content; positions read afterwards still revert correctly", () =>
        withHarness(async ({ log }) => {
          await log.append([checkpointRecord(0)]);
          await log.append([messageRecord(user("q0")), usageRecord(10)]);
          await log.append([checkpointRecord(1, "second")]);
          await log.append([messageRecord(user("q1"))]);
          await log.prepend([systemPromptRecord("late prompt 😀")]);
          const state = await log.read();
          expect(state.systemPrompt).toBe("late prompt 😀");
          expect(lines(state.messages)).toEqual(lines([user("q0"), user("q1")]));
          const mark = state.checkpoints[1]!;
          expect(mark).toMatchObject({ id: 1, label: "second", systemPrompt: "late prompt 😀", messageCount: 1, tokenCount: 10 });
          await log.truncateAndRotate(mark.position);
          const reverted = await log.read();
          expect(lines(reverted.messages)).toEqual(lines([user("q0")]));
          expect([reverted.systemPrompt, reverted.nextCheckpointId]).toEqual(["late prompt 😀", 1]);
        }));

      it("says how far it moved the records already there: a position known before, plus the shift, is where read finds it", () =>
        withHarness(async ({ log }) => {
          await log.append([messageRecord(user("q0"))]);
          const first = await log.append([checkpointRecord(0), messageRecord(user("q1"))]);
          const second = await log.append([checkpointRecord(1)]);
          const prepended = await log.prepend([systemPromptRecord("late prompt 😀")]);
          expect(prepended.positions).toEqual([0]);
          const moved = (await log.read()).checkpoints.map((c) => c.position);
          expect(moved).toEqual([first.position + prepended.shift, second.position + prepended.shift]);
          await log.truncateAndRotate(moved[1]!);
          expect(lines((await log.read()).messages)).toEqual(lines([user("q0"), user("q1")]));
        }));

      it("rejects an invalid record and changes nothing", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = summary(await log.read());
          await rejectsWith(log.prepend([systemPromptRecord("ok"), usageRecord(-5)]), InvalidRecordError.isInstance);
          expect(summary(await log.read())).toEqual(before);
        }));
    });

    describe("rotations", () => {
      it("restoreRotation brings a rotation back and keeps the replaced log as the next one, so it can be undone", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const full = summary(await log.read());
          const rotation = await log.truncateAndRotate((await log.read()).checkpoints[1]!.position);
          await log.append([messageRecord(user("another branch"))]);
          const branch = summary(await log.read());

          const restore = await log.restoreRotation(rotation.n);
          expect(restore.restored).toEqual({ n: rotation.n, location: rotation.location });
          expect(restore.savedAs?.n).toBe(2);
          expect(summary(await log.read())).toEqual(full);
          expect((await log.listRotations()).map((r) => r.n)).toEqual([1, 2]);

          await log.restoreRotation(restore.savedAs!.n);
          expect(summary(await log.read())).toEqual(branch);
          // Rotation 1 is still there: a restore copies, never moves.
          await log.restoreRotation(1);
          expect(summary(await log.read())).toEqual(full);
        }));

      it("lists rotations lowest number first, with a size", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          await log.truncateAndRotate((await log.read()).checkpoints[2]!.position);
          await log.truncateAndRotate((await log.read()).checkpoints[1]!.position);
          await log.truncateAndRotate(0);
          const listed = await log.listRotations();
          expect(listed.map((r) => r.n)).toEqual([1, 2, 3]);
          expect(listed[0]!.size).toBeGreaterThan(listed[1]!.size);
          expect(listed[1]!.size).toBeGreaterThan(listed[2]!.size);
          expect(new Set(listed.map((r) => r.location)).size).toBe(3);
        }));

      it("rejects an unknown rotation with RotationNotFoundError and changes nothing", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = summary(await log.read());
          await rejectsWith(log.restoreRotation(1), RotationNotFoundError.isInstance);
          await log.truncateAndRotate(0);
          await rejectsWith(log.restoreRotation(7), RotationNotFoundError.isInstance);
          await log.restoreRotation(1);
          expect(summary(await log.read())).toEqual(before);
        }));
    });

    describe("branch notes and side rotations", () => {
      const note = { kind: "revert", checkpoint: 1, sharedMessages: 3, messages: 9, firstPrompt: "question 1" };

      it("annotateRotation stores a note listed with its rotation; a later note replaces it", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          await log.truncateAndRotate((await log.read()).checkpoints[1]!.position);
          await log.truncateAndRotate(0);
          await log.annotateRotation(1, note);
          expect((await log.listRotations()).map((r) => r.note ?? null)).toEqual([note, null]);
          await log.annotateRotation(1, { ...note, kind: "dmail" });
          await log.annotateRotation(2, { kind: "clear", checkpoint: null, sharedMessages: 0, messages: 3, firstPrompt: null });
          expect((await log.listRotations()).map((r) => r.note?.kind)).toEqual(["dmail", "clear"]);
        }));

      it("annotateRotation rejects an unknown rotation (RotationNotFoundError) and an invalid note (InvalidRecordError)", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          await rejectsWith(log.annotateRotation(1, note), RotationNotFoundError.isInstance);
          await log.truncateAndRotate(0);
          const bad = [{ ...note, kind: "" }, { ...note, sharedMessages: -1 }, { ...note, checkpoint: 1.5 }, { ...note, firstPrompt: 7 }];
          for (const invalid of bad) await rejectsWith(log.annotateRotation(1, invalid as never), InvalidRecordError.isInstance);
          expect((await log.listRotations())[0]!.note).toBeUndefined();
        }));

      it("addRotation keeps the current log followed by the records as a new rotation, leaving the current log unchanged", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          const before = summary(await log.read());
          const side = await log.addRotation([messageRecord(user("by the way?")), messageRecord(assistant(9))]);
          expect(side.n).toBe(1);
          expect(summary(await log.read())).toEqual(before);
          const next = await log.append([messageRecord(user("main goes on"))]);
          expect(next.position).toBeGreaterThan(0);
          await log.restoreRotation(side.n);
          expect(lines((await log.read()).messages)).toEqual([...before.messages, ...lines([user("by the way?"), assistant(9)])]);
        }));

      it("addRotation rejects an invalid record and makes nothing", () =>
        withHarness(async ({ log }) => {
          await seed(log);
          await rejectsWith(log.addRotation([messageRecord({ role: "user", content: [{ type: "bogus" }] } as never)]), (e) => MessageParseError.isInstance(e) || InvalidRecordError.isInstance(e));
          expect(await log.listRotations()).toEqual([]);
        }));
    });

    describe("close", () => {
      it("waits for pending appends; afterwards every method rejects with StorageClosedError; closing twice is fine", () =>
        withHarness(async ({ log }) => {
          const pending = [log.append([messageRecord(user("a"))]), log.append([checkpointRecord(0), messageRecord(user("b"))])];
          await log.close();
          await Promise.all(pending);
          const calls: Array<() => Promise<unknown>> = [
            () => log.append([messageRecord(user("late"))]),
            () => log.read(),
            () => log.truncateAndRotate(0),
            () => log.truncateAndRotate(0, [messageRecord(user("late"))]),
            () => log.prepend([systemPromptRecord("late")]),
            () => log.listRotations(),
            () => log.restoreRotation(1),
            () => log.annotateRotation(1, { kind: "revert", checkpoint: null, sharedMessages: 0, messages: 0, firstPrompt: null }),
            () => log.addRotation([]),
          ];
          for (const call of calls) await rejectsWith(call(), StorageClosedError.isInstance);
          await log.close();
          await log[Symbol.asyncDispose]();
        }));

      it("is what async disposal does", () =>
        withHarness(async ({ log }) => {
          await log[Symbol.asyncDispose]();
          await rejectsWith(log.append([messageRecord(user("late"))]), StorageClosedError.isInstance);
        }));
    });

    describe("persistence", () => {
      it("a reopened log reads the same state, rotations included, and its positions revert correctly", (test) =>
        withHarness(async ({ log, reopen }) => {
          if (reopen === undefined) return test.skip("the harness has no reopen: the log does not persist");
          await seed(log);
          await log.truncateAndRotate((await log.read()).checkpoints[2]!.position);
          await log.append([checkpointRecord(2, "branch"), messageRecord(user("branch"))]);
          const before = summary(await log.read());
          const first = await reopen();
          const state = await first.read();
          expect(summary(state)).toEqual(before);
          expect((await first.listRotations()).map((r) => r.n)).toEqual([1]);
          const note = { kind: "revert", checkpoint: 2, sharedMessages: 6, messages: 9, firstPrompt: "question 2" };
          await first.annotateRotation(1, note);
          const reopened = await reopen();
          expect((await reopened.listRotations())[0]!.note).toEqual(note);
          const mark = state.checkpoints[1]!;
          await reopened.truncateAndRotate(mark.position);
          expect(lines((await reopened.read()).messages)).toEqual(lines(state.messages.slice(0, mark.messageCount)));
          const replaced = await reopened.truncateAndRotate(0, [systemPromptRecord("compacted"), checkpointRecord(0), messageRecord(user("summary"))]);
          const again = await reopen();
          const compacted = await again.read();
          expect([lines(compacted.messages), compacted.systemPrompt]).toEqual([lines([user("summary")]), "compacted"]);
          expect(compacted.checkpoints.map((c) => [c.id, c.position])).toEqual([[0, replaced.positions[1]]]);
          expect((await again.listRotations()).map((r) => r.n)).toEqual([1, 2, 3]);
        }));
    });
  });
}
