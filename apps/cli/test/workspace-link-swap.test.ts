/**
 * The files a workspace brings (AGENTS.md, project permission rules, hooks,
 * skills, custom commands) are read only from inside it, also against a
 * link swapped in between a check and the read: a real child process
 * toggles a folder of the workspace between a real folder and a link to a
 * folder outside, as fast as it can, while the reader reads again and
 * again. No read may ever return the outside file's content.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { findCustomCommands } from "../src/extensions/custom-commands.js";
import { findSkills } from "../src/extensions/skills.js";
import { readSessionHooks } from "../src/hooks/session-hooks.js";
import { readProjectRuleLists } from "../src/permissions/permission-rules.js";
import { findAgentsFiles } from "../src/project/agents-files.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** Reads per reader at most, and the longest a reader goes on (a leak is seen within a few hundred reads on the old code). */
const maxReads = 2000;
const maxMs = 3000;

/**
 * A child process that toggles `<ws>/<name>` between the real folder it is
 * and a link to `outside`, as fast as it can (it stops by itself after 30 s).
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
 * "inside" texts, and a folder outside holding the same files with the
 * secret text; with a swapper toggling `<name>` while `read` is called again
 * and again. Returns how many reads saw the secret, and how many saw the
 * inside text (so the reader was really reading).
 */
async function raceReads(name: string, files: Record<string, [inside: string, outside: string]>, read: (ws: string) => Promise<string>): Promise<{ leaks: number; inside: number; reads: number }> {
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

describe("a workspace's files read while a link is swapped in and out", { timeout: 30_000 }, () => {
  it("AGENTS.md of a subfolder never brings the outside file's text", async () => {
    const result = await raceReads("sub", { "AGENTS.md": ["INSIDE rules", "SECRET_AGENTS"] }, async (ws) => {
      const found = await findAgentsFiles(path.join(ws, "sub"), ws);
      return found.files.map((f) => f.content).join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("project permission rules of .claude/settings.json never come from outside", async () => {
    const rules = (allow: string) => JSON.stringify({ permissions: { allow: [allow] } });
    const result = await raceReads(".claude", { "settings.json": [rules("Shell(INSIDE)"), rules("Shell(SECRET_RULE)")] }, async (ws) => {
      const lists = await readProjectRuleLists(ws, () => undefined);
      return JSON.stringify(lists);
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("hooks of .claude/settings.json never come from outside", async () => {
    const hooks = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } });
    const home = await tempDir();
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, { HOME: home, KOSONG_HOME: path.join(home, ".kosong") });
    const result = await raceReads(".claude", { "settings.json": [hooks("echo INSIDE"), hooks("echo SECRET_HOOK")] }, async (ws) => {
      const found = await readSessionHooks({ settings, cwd: ws, home, warn: () => undefined });
      return found.project.map((h) => h.command).join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("skills and custom commands of .claude never come from outside", async () => {
    const skill = (text: string) => `---\nname: review\ndescription: ${text}\n---\nbody`;
    const result = await raceReads(".claude", { "skills/review/SKILL.md": [skill("INSIDE"), skill("SECRET_SKILL")], "commands/ship.md": ["INSIDE ship", "SECRET_COMMAND ship"] }, async (ws) => {
      const folder = (kind: string) => [{ dir: path.join(ws, ".claude", kind), root: ws, scope: "project" as const }];
      const [skills, commands] = await Promise.all([findSkills(folder("skills"), (f) => f), findCustomCommands(folder("commands"), (f) => f)]);
      return [...skills.map((s) => s.description), ...commands.map((c) => c.template)].join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });
});
