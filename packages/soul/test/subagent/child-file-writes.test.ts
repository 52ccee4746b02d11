/**
 * A child's file writes go to the parent's file journal at the parent's
 * checkpoint: the parent's rewrite past the call that ran the child, and a
 * revert of the parent's context, put the files back; the child's own
 * context has no journal.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { CallableTool } from "@kosong/core";
import { SendDMail } from "@kosong/soul";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { call, collect, ofType, script } from "../soul/helpers.js";
import { journaledSession, journaledWriteTool } from "../context-with-journal/helpers/workspace.js";
import { family } from "./helpers.js";

async function setup(parent: string[], parentTools: CallableTool[] = []) {
  const session = await journaledSession();
  const note = path.join(session.root, "note.txt");
  await writeFile(note, "original\n");
  const write = journaledWriteTool(note);
  const made = await family({
    parent,
    children: { editor: [script(call("w1", "Write", { text: "child's edit\n" })), "text: edited"] },
    childTools: [write],
    context: session.context,
    childDir: session.session,
    parentTools,
  });
  made.soul.approval.yolo = true;
  return { ...session, ...made, note };
}

describe("a child's file writes and the parent's time travel", () => {
  it("the parent's rewrite past the Agent call restores the file the child wrote", async () => {
    const { soul, note, contexts } = await setup([script(call("c1", "Agent", { name: "editor", prompt: "edit the note" })), "text: edited it", "text: left it alone"]);
    await collect(soul.run("edit the note"));
    expect(await readFile(note, "utf8")).toBe("child's edit\n");
    expect(contexts.editor!.fileJournal).toBeNull();
    const { events } = await collect(soul.rewrite(0, "leave the note alone"));
    expect(ofType(events, "Reverted").map((e) => e.payload.files)).toEqual([{ restored: ["note.txt"], skipped: [], conflicts: [] }]);
    expect(await readFile(note, "utf8")).toBe("original\n");
  });

  it("the parent's D-Mail back to the step that ran the child restores the file the child wrote", async () => {
    // Checkpoint 0: the turn; 1: the step that runs the child; 2: the step whose D-Mail goes back to 1.
    const { soul, note } = await setup(
      [script(call("c1", "Agent", { name: "editor", prompt: "edit the note" })), script(call("d1", "SendDMail", { checkpoint_id: 1, message: "do not edit the note" })), "text: left it alone"],
      [SendDMail],
    );
    const { events } = await collect(soul.run("edit the note"));
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: 1, reason: "dmail", files: { restored: ["note.txt"], skipped: [], conflicts: [] } }]);
    expect(await readFile(note, "utf8")).toBe("original\n");
  });

  it("a revert of the parent's context to the checkpoint before the call restores it, and restoring the rotation brings the edit back", async () => {
    const { soul, note, context } = await setup([script(call("c1", "Agent", { name: "editor", prompt: "edit the note" })), "text: edited it"]);
    await collect(soul.run("edit the note"));
    const reverted = await context.revertTo(0);
    expect(reverted.files).toEqual({ restored: ["note.txt"], skipped: [], conflicts: [] });
    expect(await readFile(note, "utf8")).toBe("original\n");
    const restored = await context.restoreRotation(reverted.rotation.n);
    expect(restored.files?.restored).toEqual(["note.txt"]);
    expect(await readFile(note, "utf8")).toBe("child's edit\n");
  });

  it("a file changed after the child wrote it is a conflict, left alone", async () => {
    const { soul, note, context } = await setup([script(call("c1", "Agent", { name: "editor", prompt: "edit the note" })), "text: edited it"]);
    await collect(soul.run("edit the note"));
    await writeFile(note, "the user's own edit\n");
    const reverted = await context.revertTo(0);
    expect(reverted.files).toEqual({ restored: [], skipped: [], conflicts: ["note.txt"] });
    expect(await readFile(note, "utf8")).toBe("the user's own edit\n");
  });
});
