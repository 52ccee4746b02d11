/**
 * The agent session's first-prompt record (`withFirstPromptHook`), on real
 * session folders: the first prompt a turn submits goes into `session.json`
 * once, not one a hook blocks, and a failed write is told, not thrown.
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { SoulHooks } from "@kosong/soul/hooks";
import { describe, expect, it } from "vitest";
import { withFirstPromptHook } from "../src/agent/first-prompt-hook.js";
import { createSession, listSessions } from "../src/sessions/session-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** Submits `prompt` through the hooks as a turn does. */
const submit = (hooks: SoulHooks, prompt: string) => hooks.userPromptSubmit!({ prompt, input: prompt });
const recorded = async (dir: string) => (JSON.parse(await readFile(path.join(dir, "session.json"), "utf8")) as { first_prompt: string | null }).first_prompt;

describe("the first-prompt hook", () => {
  it("records the first prompt a turn submits, once, keeping the session's own hooks' outcome", async () => {
    const home = await tempDir();
    const session = await createSession(home, "/work/a");
    const inner: SoulHooks = { userPromptSubmit: () => ({ additionalContext: "from a hook" }) };
    const { hooks, settled } = withFirstPromptHook(inner, session, (line) => expect.fail(line));
    expect(await listSessions(home)).toEqual([]);
    expect(await submit(hooks, "fix the typo")).toEqual({ additionalContext: "from a hook" });
    await submit(hooks, "and the next one");
    await settled();
    expect(await recorded(session.dir)).toBe("fix the typo");
    expect((await listSessions(home)).map((s) => s.firstPrompt)).toEqual(["fix the typo"]);
  });

  it("does not record a prompt a hook blocks (it never enters the conversation)", async () => {
    const home = await tempDir();
    const session = await createSession(home, "/work/a");
    const { hooks, settled } = withFirstPromptHook({ userPromptSubmit: () => ({ block: "not that" }) }, session, (line) => expect.fail(line));
    expect(await submit(hooks, "rm -rf everything")).toEqual({ block: "not that" });
    await settled();
    expect(await recorded(session.dir)).toBeNull();
  });

  it("tells a write that failed, without failing the turn", async () => {
    const home = await tempDir();
    const session = await createSession(home, "/work/a");
    // session.json replaced by a folder: the record's replace cannot rename over it.
    await rm(path.join(session.dir, "session.json"));
    await mkdir(path.join(session.dir, "session.json", "in-the-way"), { recursive: true });
    const warnings: string[] = [];
    const { hooks, settled } = withFirstPromptHook({}, session, (line) => warnings.push(line));
    expect(await submit(hooks, "fix the typo")).toBeUndefined();
    await settled();
    expect(warnings).toEqual([expect.stringMatching(/^the session's first prompt was not recorded in session\.json: /)]);
    // Nothing recorded: closing the session takes the first prompt from the history (it records only when none is held)...
    expect(session.firstPrompt).toBeNull();
    // ...and the next prompt, once the write could succeed, is not taken for the first.
    await rm(path.join(session.dir, "session.json"), { recursive: true });
    await submit(hooks, "and the next one");
    await settled();
    expect(session.firstPrompt).toBeNull();
    expect(warnings).toHaveLength(1);
  });
});
