/**
 * The behaviour every {@link ContextJournal} owes a checkpointed
 * conversation (the soul's `Context`), as a vitest suite any implementation
 * runs against itself. It drives the journal as the conversation does:
 * marks, then a restore begun before the conversation's step and finished
 * (or aborted) after it, and recovery when the conversation is read again.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ContextJournal } from "../context-journal.js";

/** A journal under test over a workspace, and how the agent changes that workspace through it. */
export interface ContextJournalHarness {
  /** The journal: a fresh one over an empty workspace, the latest one after {@link reopen}. */
  readonly journal: ContextJournal;
  /** The agent writes `path` (relative to the workspace) through the latest journal: its prior state recorded first. `null` deletes it. */
  write(path: string, content: string | null): Promise<void>;
  /** The content of `path` in the workspace now, null when it does not exist. */
  read(path: string): Promise<string | null>;
  /** Someone else changes `path` (not through the journal). */
  writeOutside(path: string, content: string): Promise<void>;
  /**
   * For journals that persist: drops the latest journal without closing it
   * cleanly (as a crash would) and opens a new one over the same data.
   * {@link journal} is then the new one. Without it, the recovery tests
   * are skipped.
   */
  reopen?: () => Promise<ContextJournal>;
  /** Releases what the harness created. */
  cleanup?: () => Promise<void>;
}

/**
 * Runs the contract against journals `make` creates (one per test).
 *
 * ```ts
 * describeContextJournalContract("FileJournal", async () => harnessOverATempWorkspace());
 * ```
 */
export function describeContextJournalContract(name: string, make: () => Promise<ContextJournalHarness>): void {
  describe(`${name} (ContextJournal contract)`, () => {
    let harness: ContextJournalHarness | null = null;
    const open = async (): Promise<ContextJournalHarness> => (harness = await make());
    afterEach(async () => {
      await harness?.cleanup?.();
      harness = null;
    });

    it("a restore to a checkpoint puts back the files changed after its mark, once the conversation's step is done", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "two");
      await h.write("b.txt", "new");
      await h.journal.markCheckpoint(1);
      await h.write("a.txt", "three");
      const pending = await h.journal.beginRestore("revert", { checkpoint: 0 }, "before");
      // Begun, not finished: nothing changed yet (the conversation's step comes first).
      expect(await h.read("a.txt")).toBe("three");
      const report = await h.journal.finishRestore(pending, 1);
      expect({ restored: [...report.restored].sort(), skipped: report.skipped, conflicts: report.conflicts }).toEqual({ restored: ["a.txt", "b.txt"], skipped: [], conflicts: [] });
      expect([await h.read("a.txt"), await h.read("b.txt")]).toEqual(["one", null]);
    });

    it("marking the newest checkpoint again changes nothing: a restore to it undoes what came after the first mark", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "two");
      await h.journal.markCheckpoint(0);
      const report = await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "before"), 1);
      expect(report.restored).toEqual(["a.txt"]);
      expect(await h.read("a.txt")).toBe("one");
    });

    it("an aborted restore changes no file, and the checkpoint can still be restored", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "two");
      await h.journal.abortRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "before"));
      expect(await h.read("a.txt")).toBe("two");
      await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "before"), 1);
      expect(await h.read("a.txt")).toBe("one");
    });

    it("restoring the rotation a revert kept brings the later files back", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "two");
      await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "before"), 1);
      const report = await h.journal.finishRestore(await h.journal.beginRestore("rotation", { rotation: 1 }, "reverted"), 2);
      expect(report.restored).toEqual(["a.txt"]);
      expect(await h.read("a.txt")).toBe("two");
    });

    it("a clear restores no file", async () => {
      const h = await open();
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "one");
      const report = await h.journal.finishRestore(await h.journal.beginRestore("clear", null, "before"), 1);
      expect(report.restored).toEqual([]);
      expect(await h.read("a.txt")).toBe("one");
    });

    it("leaves a file changed outside the agent alone and reports it, unless forced", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      await h.journal.markCheckpoint(0);
      await h.write("a.txt", "two");
      await h.writeOutside("a.txt", "someone else's");
      const left = await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "before"), 1);
      expect([left.conflicts, await h.read("a.txt")]).toEqual([["a.txt"], "someone else's"]);
      await h.journal.finishRestore(await h.journal.beginRestore("rotation", { rotation: 1 }, "reverted", true), 2);
      await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 0 }, "back", true), 3);
      expect(await h.read("a.txt")).toBe("one");
    });

    it("a checkpoint it has no mark of restores nothing, and says so", async () => {
      const h = await open();
      await h.write("a.txt", "one");
      const report = await h.journal.finishRestore(await h.journal.beginRestore("revert", { checkpoint: 7 }, "before"), 1);
      expect([report.restored, typeof report.notice]).toEqual([[], "string"]);
    });

    describe("recovery", () => {
      it("finds nothing to finish when nothing was interrupted", async () => {
        const h = await open();
        if (h.reopen === undefined) return;
        await h.journal.markCheckpoint(0);
        await h.write("a.txt", "one");
        expect(await (await h.reopen()).recover("now", [])).toBeNull();
      });

      it("completes a restore a crash interrupted when the conversation's step happened (another fingerprint)", async () => {
        const h = await open();
        if (h.reopen === undefined) return;
        await h.write("a.txt", "one");
        await h.journal.markCheckpoint(0);
        await h.write("a.txt", "two");
        await h.journal.beginRestore("revert", { checkpoint: 0 }, "before the step");
        const recovered = await (await h.reopen()).recover("after the step", [1]);
        expect([recovered?.outcome, recovered?.files.restored, await h.read("a.txt")]).toEqual(["completed", ["a.txt"], "one"]);
      });

      it("rolls back a restore a crash interrupted before the conversation's step (the same fingerprint)", async () => {
        const h = await open();
        if (h.reopen === undefined) return;
        await h.write("a.txt", "one");
        await h.journal.markCheckpoint(0);
        await h.write("a.txt", "two");
        await h.journal.beginRestore("revert", { checkpoint: 0 }, "before the step");
        const recovered = await (await h.reopen()).recover("before the step", []);
        expect([recovered?.outcome, await h.read("a.txt")]).toEqual(["rolled-back", "two"]);
        // Rolled back: the checkpoint is still there to restore.
        const journal = h.journal;
        await journal.finishRestore(await journal.beginRestore("revert", { checkpoint: 0 }, "before the step"), 1);
        expect(await h.read("a.txt")).toBe("one");
      });
    });
  });
}
