/**
 * A Shell command cut by a crash: a real child process scans the workspace
 * as the Shell tool does, runs a real bash command that edits, deletes and
 * creates files, and is SIGKILLed while the command still runs. On the next
 * open the journal finds what the command changed (its listing from before
 * the command was made durable first): the created file is journaled, so a
 * revert deletes it; the changed and deleted files are reported as not
 * restorable (their content before was not kept), and the revert says so;
 * a file the agent had journaled earlier is restored as usual.
 */
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { killWhenReady } from "../context/helpers/kill-child.js";
import { journaledSession } from "./helpers/workspace.js";

describe("a Shell command cut by a crash", () => {
  it("is found on the next open: what it created is deleted by a revert, what it changed is reported as not restorable", async () => {
    const { root, session, journal, context, open } = await journaledSession();
    const at = (name: string) => path.join(root, name);
    await writeFile(at("edit.txt"), "before\n");
    await writeFile(at("gone.txt"), "delete me\n");
    await writeFile(at("declared.txt"), "original\n");
    await writeFile(at("untouched.txt"), "same\n");
    await context.checkpoint();
    // The agent wrote declared.txt (journaled as usual) before the command.
    const declared = await journal.declareWrite([at("declared.txt")]);
    await writeFile(at("declared.txt"), "by the agent\n");
    await declared.done();
    await context.close();
    await journal.close();

    const command = "echo changed >> edit.txt; rm gone.txt; echo new > new.txt; echo again >> declared.txt; echo \"pid $$\"; echo changed-all; exec sleep 60 >/dev/null 2>&1";
    let bashPid = 0;
    await killWhenReady("context-with-journal/children/command-crash-child.ts", [root, session, command], (line) => {
      if (line.startsWith("pid ")) bashPid = Number(line.slice(4));
      return line === "changed-all";
    });
    process.kill(bashPid, "SIGKILL");

    const reopened = await open();
    expect(reopened.report.fileRecovery).toMatchObject({ outcome: null, command: { created: ["new.txt"], notRestorable: ["edit.txt", "gone.txt"], notice: null } });
    const reverted = await reopened.context.revertTo(0);
    expect(reverted.files?.restored.sort()).toEqual(["declared.txt", "new.txt"]);
    expect(reverted.files?.skipped).toEqual([
      { path: "edit.txt", reason: "not journaled: changed by a command a crash interrupted: its content before the command was not kept" },
      { path: "gone.txt", reason: "not journaled: changed by a command a crash interrupted: its content before the command was not kept" },
    ]);
    expect(await readFile(at("declared.txt"), "utf8")).toBe("original\n");
    await expect(readFile(at("new.txt"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readFile(at("edit.txt"), "utf8")).toBe("before\nchanged\n");

    // The listing of the scan before the command is removed once the command is dealt with.
    expect(await readdir(path.join(session, "files", "scans"))).toEqual([]);
    // Found once: the next open has nothing to recover.
    await reopened.context.close();
    await reopened.journal.close();
    expect((await open()).report.fileRecovery).toBeNull();
  });

  it("drops a command's scan record whose listing never became durable, and journals nothing from a listing it cannot read", async () => {
    for (const trailing of [true, false]) {
      const { root, session, journal, context, open } = await journaledSession();
      const at = (name: string) => path.join(root, name);
      await writeFile(at("kept.txt"), "kept\n");
      await context.checkpoint();
      await journal.scanCommand();
      // Not at the journal's end: a later record makes the scan record one the journal keeps.
      if (!trailing) await (await journal.declareWrite([at("other.txt")])).done();
      await writeFile(at("made.txt"), "by the command\n");
      await context.close();
      await journal.close();
      const records = (await readFile(path.join(session, "files", "journal.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { t: string; list?: string });
      await rm(path.join(session, "files", "scans", records.find((r) => r.t === "scan")!.list!));

      const reopened = await open();
      const command = reopened.report.fileRecovery?.command ?? null;
      if (trailing) expect(command).toBeNull();
      else expect(command).toMatchObject({ created: [], notRestorable: [], notice: expect.stringMatching(/the scan before it cannot be read .*: what it changed is not known/) });
      await reopened.context.revertTo(0);
      expect(await readFile(at("kept.txt"), "utf8")).toBe("kept\n");
      expect(await readFile(at("made.txt"), "utf8")).toBe("by the command\n");
    }
  });
});
