/**
 * A restore killed at random points: a real child reverts a journaled
 * session (16 files rewritten, one created, one deleted by the agent) and is
 * SIGKILLed after a seeded random delay within the restore's duration. Every
 * file is then wholly in its old or its restored state, and reopening the
 * session finishes the work: all files restored when the conversation was
 * reverted, all old when it was not, with a report of what was recovered.
 * Set KOSONG_CRASH_SEED to replay a run.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { randomFor } from "../children/turn-child.js";
import { killWhenReady } from "../context/helpers/kill-child.js";
import { journaledSession, snapshot } from "./helpers/workspace.js";

const seed = Number(process.env.KOSONG_CRASH_SEED ?? Date.now() % 1_000_000);
const KILLS = 50;
const FILES = 16;

/** A session whose conversation has checkpoints 0 and 1, the agent having changed the files between them. */
async function prepared() {
  const { root, session, journal, context } = await journaledSession();
  const body = (tag: string, i: number) => `${tag} ${i} `.repeat(1000);
  for (let i = 0; i < FILES; i++) await writeFile(path.join(root, `f${i}.txt`), body("old", i));
  await writeFile(path.join(root, "deleted.txt"), "the agent deletes this\n");
  await context.checkpoint();
  const old = await snapshot(root);
  const paths = [...Array.from({ length: FILES }, (_, i) => `f${i}.txt`), "deleted.txt", "created.txt"];
  const declared = await journal.declareWrite(paths);
  for (let i = 0; i < FILES; i++) await writeFile(path.join(root, `f${i}.txt`), body("new", i));
  await rm(path.join(root, "deleted.txt"));
  await writeFile(path.join(root, "created.txt"), "made by the agent\n");
  await declared.done();
  await context.checkpoint();
  // The agent declares the files again at checkpoint 1 (and leaves them): their current content is then
  // already a blob, so the restore's time goes to replacing files, where the kills should fall.
  await (await journal.declareWrite(paths)).done();
  const later = await snapshot(root);
  await context.close();
  await journal.close();
  return { root, session, old, later };
}

describe(`a file restore under SIGKILL (seed ${seed})`, () => {
  it("leaves each file wholly old or restored, and the next open finishes the restore", async () => {
    // How long an uninterrupted restore takes here: the kills fall within it.
    const timing = await prepared();
    const { lines } = await killWhenReady("context-with-journal/children/restore-crash-child.ts", [timing.root, timing.session], (l) => l.startsWith("done "));
    const duration = Number(lines.at(-1)!.split(" ")[1]);
    expect(await snapshot(timing.root)).toEqual(timing.old);

    const outcomes = { before: 0, after: 0, completed: 0, "rolled-back": 0 };
    const trial = async (trial: number) => {
      const where = `trial ${trial}, seed ${seed}`;
      const rand = randomFor(seed, trial, 2);
      const run = await prepared();
      await killWhenReady("context-with-journal/children/restore-crash-child.ts", [run.root, run.session], "ready", { delayMs: Math.floor(rand() * duration) });
      const afterKill = await snapshot(run.root);
      for (const [name, state] of Object.entries(afterKill)) {
        if (name.endsWith(".kosong-tmp")) continue; // A replace cut short: removed by the next open.
        expect([run.old[name], run.later[name]], `${where}: ${name} is neither old nor restored`).toContain(state);
      }

      const { journal, context, report } = await reopen(run.root, run.session);
      const reverted = context.checkpoints.length === 0;
      outcomes[report.fileRecovery?.outcome ?? (reverted ? "after" : "before")]++;
      if (report.fileRecovery) expect(report.fileRecovery.outcome, where).toBe(reverted ? "completed" : "rolled-back");
      expect(await snapshot(run.root), where).toEqual(reverted ? run.old : run.later);
      await context.close();
      await journal.close();
      await rm(run.root, { recursive: true, force: true });
      await rm(run.session, { recursive: true, force: true });
    };
    for (let pair = 0; pair < KILLS; pair += 2) await Promise.all([trial(pair), trial(pair + 1)]);
    console.info(`restore crash: ${KILLS} kills within ${duration} ms restores:`, outcomes);
  }, 240_000);
});

async function reopen(root: string, session: string) {
  const { Context } = await import("@kosong/soul");
  const { FileJournal, nodeWorkspaceFiles } = await import("@kosong/workspace");
  const journal = new FileJournal({ dir: path.join(session, "files"), files: nodeWorkspaceFiles(root) });
  const context = new Context(path.join(session, "context.jsonl"), { fileJournal: journal });
  const report = await context.restore();
  return { journal, context, report };
}
