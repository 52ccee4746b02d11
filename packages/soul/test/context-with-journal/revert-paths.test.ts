/**
 * The soul's reverts restore files: a tool that declares its writes through
 * the tool context (`declareWrite`), then the model's D-Mail and the host's
 * rewrite each put the file back as it was at their checkpoint, the
 * `Reverted` event lists it, and restoring the rotation brings the later
 * content back.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider, type ChatScript } from "@kosong/core/testing";
import { parseEvent, SendDMail, serializeEvent, Soul } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { call, collect, noWait, ofType, script } from "../soul/helpers.js";
import { journaledSession, journaledWriteTool } from "./helpers/workspace.js";

async function setup(scripts: ChatScript[]) {
  const session = await journaledSession();
  const note = path.join(session.root, "note.txt");
  const write = journaledWriteTool(note);
  const provider = new ScriptedChatProvider(scripts);
  const toolset = new SimpleToolset([write, SendDMail]);
  const soul = new Soul({ agent: { name: "t", systemPrompt: "test", toolset }, provider, context: session.context, config: { retry: noWait } });
  soul.approval.yolo = true;
  return { ...session, soul, note };
}

describe("reverts through the soul restore files", () => {
  it("a D-Mail puts the file back as it was at its checkpoint; restoring the rotation brings the later one back", async () => {
    const { soul, note, context } = await setup([
      script(call("w1", "Write", { text: "first\n" })),
      "text: wrote it",
      // Turn 2 starts at checkpoint 3; its first step (checkpoint 4) writes again and sends a D-Mail back to 3.
      script(call("w2", "Write", { text: "second, wrong\n" }), call("d", "SendDMail", { checkpoint_id: 3, message: "keep the first version" })),
      "text: kept it",
    ]);
    await collect(soul.run("write the note"));
    expect(await readFile(note, "utf8")).toBe("first\n");
    const { events } = await collect(soul.run("change it"));
    const reverted = ofType(events, "Reverted").map((e) => e.payload);
    expect(reverted).toEqual([{ checkpoint_id: 3, reason: "dmail", files: { restored: ["note.txt"], skipped: [], conflicts: [] } }]);
    expect(await readFile(note, "utf8")).toBe("first\n");
    // The file lists travel in the wire envelope too.
    const event = ofType(events, "Reverted")[0]!;
    expect(parseEvent(serializeEvent(event))).toEqual(event);

    const rotations = await context.rotations();
    const undo = await context.restoreRotation(rotations.at(-1)!.n);
    expect(undo.files?.restored).toEqual(["note.txt"]);
    expect(await readFile(note, "utf8")).toBe("second, wrong\n");
  });

  it("a D-Mail to the checkpoint of the step that wrote undoes that step's write (the step's checkpoint precedes its tools)", async () => {
    const { soul, note } = await setup([
      script(call("w1", "Write", { text: "first\n" })),
      "text: wrote it",
      // Turn 2: checkpoint 3, then its first step's checkpoint 4, written with the step after the tools ran.
      script(call("w2", "Write", { text: "second, wrong\n" }), call("d", "SendDMail", { checkpoint_id: 4, message: "do not write" })),
      "text: left it",
    ]);
    await collect(soul.run("write the note"));
    const { events } = await collect(soul.run("change it"));
    expect(ofType(events, "Reverted").map((e) => e.payload.files)).toEqual([{ restored: ["note.txt"], skipped: [], conflicts: [] }]);
    expect(await readFile(note, "utf8")).toBe("first\n");
  });

  it("a rewrite of the user's message puts the file back as it was before that turn", async () => {
    const { soul, note } = await setup([
      script(call("w1", "Write", { text: "one\n" })),
      "text: ok",
      script(call("w2", "Write", { text: "two\n" })),
      "text: ok",
      "text: not writing this time",
    ]);
    await writeFile(note, "zero\n");
    await collect(soul.run("write one"));
    await collect(soul.run("write two"));
    expect(await readFile(note, "utf8")).toBe("two\n");
    const index = soul.history.findIndex((m) => m.role === "user" && m.content[0]?.type === "text" && m.content[0].text === "write two");
    const { events } = await collect(soul.rewrite(index, "do nothing"));
    expect(ofType(events, "Reverted")[0]!.payload.files?.restored).toEqual(["note.txt"]);
    expect(await readFile(note, "utf8")).toBe("one\n");
  });
});
