/**
 * Permission bits of context files: a new file, its lock and every file that
 * replaces it (truncate-with-rotation, prepend, restoring a rotation) are
 * owner-only, or keep the bits of the file they replace; also under umask
 * 000 and after a SIGKILL in the middle of a replacement.
 */
import { chmod, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { JsonlContextFile } from "@kosong/context";
import { checkpointRecord, messageRecord, systemPromptRecord } from "@kosong/context/records";
import { assertDistIsFresh, startChild } from "./helpers/child.js";
import { seededRandom } from "./helpers/random.js";
import { tempDir } from "@kosong/test-support";

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
const user = (text: string) => messageRecord({ role: "user", content: [{ type: "text", text }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The permission bits of every file in `dir`, by name. */
async function modesIn(dir: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of await readdir(dir)) out[name] = await modeOf(path.join(dir, name));
  return out;
}

describe("file modes of context files", () => {
  beforeAll(assertDistIsFresh);

  it("every whole-file operation keeps the mode of the file it replaces, and rotations keep theirs", async () => {
    for (const mode of [0o600, 0o640]) {
      const file = path.join(await tempDir(), "context.jsonl");
      await writeFile(file, "");
      await chmod(file, mode);
      const ctx = await JsonlContextFile.open(file);
      const mark = (await ctx.append([checkpointRecord(0), user("one")])).end;
      await ctx.append([user("two")]);
      const rotation = await ctx.truncateAndRotate(mark);
      expect(await modeOf(file), "truncate").toBe(mode);
      expect(await modeOf(rotation.location), "rotation").toBe(mode);
      await ctx.truncateAndRotate(0, [systemPromptRecord("compacted"), user("summary")]);
      expect(await modeOf(file), "truncate with records").toBe(mode);
      await ctx.prepend([systemPromptRecord("late")]);
      expect(await modeOf(file), "prepend").toBe(mode);
      await ctx.restoreRotation(rotation.n);
      expect(await modeOf(file), "restore").toBe(mode);
      await ctx.close();
    }
  });

  it("under umask 000, a new session file, its lock and every replacement are owner-only", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "context.jsonl");
    const child = startChild(["modes", file], { umask: "000" });
    await child.waitFor((l) => l === "ready");
    // The lock exists while the child holds the file.
    expect(await modeOf(`${file}.lock`)).toBe(0o600);
    await child.waitFor((l) => l === "op restore");
    await child.waitFor((l) => l === "op truncate" && child.lines.filter((x) => x === "op truncate").length >= 2);
    child.process.kill("SIGKILL");
    await child.exited;
    const modes = await modesIn(dir);
    expect(Object.keys(modes).filter((n) => /^context_\d+\.jsonl$/.test(n)).length).toBeGreaterThanOrEqual(3);
    for (const [name, mode] of Object.entries(modes)) expect(mode, name).toBe(0o600);
  });

  it("a SIGKILL at any moment of a replacement under umask 000 leaves no file readable by others", async () => {
    const rand = seededRandom(Number(process.env.KOSONG_CRASH_SEED ?? Date.now() % 1_000_000));
    for (let trial = 0; trial < 12; trial += 1) {
      const dir = await tempDir();
      const file = path.join(dir, "context.jsonl");
      const child = startChild(["modes", file, ...(trial % 3 === 0 ? ["large"] : [])], { umask: "000", noHardLinks: trial % 2 === 1 });
      await child.waitFor((l) => l === "ready");
      const nth = 1 + Math.floor(rand() * 6);
      let seen = 0;
      await child.waitFor((l) => l.startsWith("op ") && ++seen === nth);
      await sleep(Math.floor(rand() * 4));
      child.process.kill("SIGKILL");
      await child.exited;
      // The temp file of the interrupted operation, if the kill left one, is owner-only too.
      for (const [name, mode] of Object.entries(await modesIn(dir))) expect(mode, `trial ${trial}: ${name}`).toBe(0o600);
      const reopened = await JsonlContextFile.open(file);
      await reopened.close();
      expect(await modeOf(file), `trial ${trial}: reopened`).toBe(0o600);
    }
  }, 60_000);
});
