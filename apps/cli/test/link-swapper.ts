/**
 * A link swapped in and out of a workspace while kosong reads from it: a
 * real child process toggles one entry of the workspace (a folder or a
 * file) between what it is and a link to the same name outside, as fast as
 * it can, while a reader reads again and again. On a reader that checks a
 * name and then reads by it, the outside content shows within a few hundred
 * reads.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** Reads per reader at most, and the longest a reader goes on (a leak is seen within a few hundred reads on the old code). */
const maxReads = 5000;
const maxMs = 2500;

/**
 * A child process that toggles `<ws>/<name>` between what it is (a folder
 * or a file) and a link to `outside`, as fast as it can (it stops by itself
 * after 30 s).
 */
function startSwapper(ws: string, name: string, outside: string): ChildProcess {
  const script = `
    const fs = require("node:fs");
    const { WS, NAME, OUTSIDE } = process.env;
    const at = WS + "/" + NAME, aside = WS + "/." + NAME + ".aside";
    const end = Date.now() + 30000;
    while (Date.now() < end) {
      fs.renameSync(at, aside);
      fs.symlinkSync(OUTSIDE, at);
      fs.unlinkSync(at);
      fs.renameSync(aside, at);
    }`;
  return spawn(process.execPath, ["-e", script], { env: { WS: ws, NAME: name, OUTSIDE: outside }, stdio: "ignore" });
}

const swappers: ChildProcess[] = [];
afterEach(() => {
  for (const child of swappers.splice(0)) child.kill("SIGKILL");
});

/**
 * A workspace (a git repository) whose `<name>` folder holds `files` with
 * "inside" texts (or, with `files` of one entry named "", `<name>` is that
 * file), and the same outside with the secret texts (each with a word
 * starting `SECRET`); with a swapper toggling `<name>` while `read` is
 * called again and again. Returns how many reads saw a secret, and how many
 * saw the inside text (so the reader was really reading).
 */
export async function raceReads(name: string, files: Record<string, [inside: string, outside: string]>, read: (ws: string) => Promise<string>): Promise<{ leaks: number; inside: number; reads: number }> {
  const root = await tempDir();
  const ws = path.join(root, "ws");
  const outside = path.join(root, "outside");
  await mkdir(path.join(ws, ".git"), { recursive: true });
  for (const [file, [inText, outText]] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, name, file)), { recursive: true });
    await writeFile(path.join(ws, name, file), inText);
    await mkdir(path.dirname(path.join(outside, file)), { recursive: true });
    await writeFile(path.join(outside, file), outText);
  }
  // Before the swapper starts: the inside content is read.
  expect(await read(ws)).toContain("INSIDE");
  const secrets = Object.values(files).map(([, out]) => out.match(/SECRET\w*/)![0]);
  const swapper = startSwapper(ws, name, outside);
  swappers.push(swapper);
  let leaks = 0;
  let inside = 0;
  let reads = 0;
  const end = Date.now() + maxMs;
  while (reads < maxReads && Date.now() < end) {
    const text = await read(ws);
    reads += 1;
    if (secrets.some((secret) => text.includes(secret))) leaks += 1;
    if (text.includes("INSIDE")) inside += 1;
  }
  swapper.kill("SIGKILL");
  return { leaks, inside, reads };
}

