/**
 * The seam between the Context and the file journal: each checkpoint is
 * marked in the journal once, and the model reads in `SendDMail`'s
 * description whether a D-Mail restores files (it does when the context has
 * a file journal).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { declareWrite } from "@kosong/workspace";
import { Context, SendDMail, Soul } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tempDir } from "@kosong/test-support";
import { call, collect, noWait, ofType, script } from "../soul/helpers.js";
import { journaledSession } from "./helpers/workspace.js";

function soulOn(context: Context, provider: ScriptedChatProvider, root: string): Soul {
  const note = path.join(root, "note.txt");
  const write = defineTool({
    name: "Write",
    description: "Writes note.txt.",
    parameters: z.object({ text: z.string() }),
    async execute({ text }, toolContext) {
      const declared = await declareWrite(toolContext, [note]);
      try {
        await writeFile(note, text);
      } finally {
        await declared.done();
      }
      return "written";
    },
  });
  const soul = new Soul({ agent: { name: "t", systemPrompt: "test", toolset: new SimpleToolset([write, SendDMail]) }, provider, context, config: { retry: noWait } });
  soul.approval.yolo = true;
  return soul;
}

describe("checkpoints in the file journal", () => {
  it("marks each checkpoint once: the turn's, each step's, and the one a D-Mail makes", async () => {
    const session = await journaledSession();
    const marked: number[] = [];
    const mark = session.journal.markCheckpoint.bind(session.journal);
    session.journal.markCheckpoint = (id: number) => {
      marked.push(id);
      return mark(id);
    };
    const provider = new ScriptedChatProvider([
      script(call("w1", "Write", { text: "first\n" })),
      "text: wrote it",
      script(call("w2", "Write", { text: "second\n" }), call("d", "SendDMail", { checkpoint_id: 3, message: "keep the first" })),
      "text: kept it",
    ]);
    const soul = soulOn(session.context, provider, session.root);
    const created: number[] = [];
    for (const input of ["write the note", "change it"]) {
      const { events } = await collect(soul.run(input));
      created.push(...ofType(events, "CheckpointCreated").map((e) => e.payload.id));
    }
    expect(created).toEqual([0, 1, 2, 3, 4, 3, 4]);
    expect(marked).toEqual(created);
  });
});

describe("SendDMail's description, as the model reads it", () => {
  const descriptionSent = async (context: Context, root: string): Promise<string> => {
    const provider = new ScriptedChatProvider(["text: hi"]);
    await collect(soulOn(context, provider, root).run("hello"));
    return provider.calls[0]!.tools.find((tool) => tool.name === "SendDMail")!.description;
  };

  it("says the files are restored when the context has a file journal", async () => {
    const session = await journaledSession();
    const description = await descriptionSent(session.context, session.root);
    expect(description).toContain("files your tools changed after that checkpoint are restored");
    expect(description).not.toContain("Files and other effects outside the conversation are NOT reverted");
  });

  it("says they are not without one", async () => {
    const dir = await tempDir();
    const context = new Context(path.join(dir, "context.jsonl"));
    await context.restore();
    const description = await descriptionSent(context, dir);
    expect(description).toContain("Files and other effects outside the conversation are NOT reverted");
  });
});
