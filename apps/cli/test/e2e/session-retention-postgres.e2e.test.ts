/**
 * `kosong sessions prune --store`: a session whose conversation is in
 * PostgreSQL goes from the database (its rotations too) and from disk;
 * the sessions kept stay in both; without the store's URL such a session
 * is left whole and said so. Export and import work on such sessions too.
 */
import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();

describe("kosong sessions prune with --store", { timeout: 90_000 }, () => {
  it("removes exactly the old sessions from PostgreSQL and disk", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const script = path.join(home, "script.json");
    await writeFile(script, JSON.stringify(["text: done"]));
    const sessionsDir = path.join(home, ".kosong", "sessions");
    const ids: string[] = [];
    for (const prompt of ["old stored question", "new stored question"]) {
      const before = new Set(await readdir(sessionsDir).catch(() => []));
      const run = await runKosong(["--provider", "scripted", "--script", script, "--store", pg.url, "-p", prompt], { cwd, home });
      expect(run.code, run.stderr).toBe(0);
      ids.push((await readdir(sessionsDir)).find((name) => !before.has(name))!);
    }
    const [old, fresh] = ids as [string, string];
    // A rotation of the old session in the database, which must go with it.
    const log = await pg.store.openLog(old);
    await log.truncateAndRotate(0);
    await log.close();
    const when = new Date(Date.now() - 60 * 86_400_000);
    for (const name of ["context.jsonl", "session.json"]) await utimes(path.join(sessionsDir, old, name), when, when);
    const inStore = async () => (await pg.store.listSessions()).map((s) => s.id).filter((id) => ids.includes(id)).sort();
    expect(await inStore()).toEqual([...ids].sort());
    expect((await pg.store.listSessions()).find((s) => s.id === old)?.rotations).toBe(1);

    const withoutUrl = await runKosong(["sessions", "prune", "--older-than", "30d"], { cwd, home });
    expect(withoutUrl.code).toBe(1);
    expect(withoutUrl.stdout).toMatch(new RegExp(`^left ${old} .*--store`, "m"));
    expect((await readdir(sessionsDir)).sort()).toEqual([...ids].sort());

    const dry = await runKosong(["--store", pg.url, "sessions", "prune", "--older-than", "30d", "--dry-run"], { cwd, home });
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${old} .*old stored question$`, "m"));
    expect(await inStore()).toEqual([...ids].sort());

    const pruned = await runKosong(["sessions", "prune", "--older-than", "30d"], { cwd, home, env: { KOSONG_STORE_URL: pg.url } });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(/^Removed 1 session, /m);
    expect(await inStore()).toEqual([fresh]);
    expect(await readdir(sessionsDir)).toEqual([fresh]);
    const kept = await pg.store.openLog(fresh);
    expect((await kept.read()).messages.length).toBeGreaterThan(0);
    await kept.close();
  });

  it("exports a session whose conversation is in PostgreSQL, and imports it back into PostgreSQL", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const script = path.join(home, "script.json");
    await writeFile(script, JSON.stringify(["text: stored answer"]));
    const env = { KOSONG_STORE_URL: pg.url };
    const run = await runKosong(["--provider", "scripted", "--script", script, "-p", "a stored question"], { cwd, home, env });
    expect(run.code, run.stderr).toBe(0);
    const [id] = await readdir(path.join(home, ".kosong", "sessions"));
    const without = await runKosong(["export", id!, "--format", "jsonl"], { cwd, home });
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/in PostgreSQL: give --store/);
    const exported = await runKosong(["export", id!, "-o", path.join(cwd, "stored.md")], { cwd, home, env });
    expect(exported.code, exported.stderr).toBe(0);
    const imported = await runKosong(["import", path.join(cwd, "stored.md")], { cwd, home, env });
    expect(imported.code, imported.stderr).toBe(0);
    const newId = /as session (\S+)\./.exec(imported.stdout)![1]!;
    const lines = async (sessionId: string) => {
      const log = await pg.store.openLog(sessionId);
      try {
        return (await log.read()).messages;
      } finally {
        await log.close();
      }
    };
    expect(await lines(newId)).toEqual(await lines(id!));
    expect((await lines(newId)).length).toBeGreaterThan(1);
    expect(await readFile(path.join(home, ".kosong", "sessions", newId, "context.jsonl"), "utf8")).toBe("");
  });

  it("lists and prunes sessions only PostgreSQL holds (no folder here), their rotations and subagent contexts with them", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const stamp = Date.now().toString(36);
    const [stale, live] = [`svc-old-${stamp}`, `svc-new-${stamp}`];
    const child = `${stale}/agents/a1`;
    // A child whose session is gone from both places: listed on its own, so that it can go too.
    const orphan = `svc-gone-${stamp}/a2`;
    const prompt = (text: string) => ({ kind: "message" as const, message: { role: "user" as const, content: [{ type: "text" as const, text }] } });
    for (const [id, text] of [[stale, "stale service question"], [child, "child question"], [orphan, "orphan question"], [live, "live service question"]] as const) {
      const log = await pg.store.openLog(id);
      await log.append([prompt(text)]);
      if (id === stale) await log.truncateAndRotate(0, [prompt(text)]);
      await log.close();
    }
    // The stale session and its child were last written 60 days ago.
    await pg.query(`UPDATE sessions SET updated_at = now() - interval '60 days' WHERE session_id = ANY($1)`, [[stale, child, orphan]]);
    const ids = async () => (await pg.store.listSessions()).map((s) => s.id).filter((id) => id.includes(stamp)).sort();

    const listed = await runKosong(["--store", pg.url, "sessions"], { cwd, home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${stale} +\\(only in PostgreSQL\\) +\\d+ B +0 B +\\S+ \\S+ +stale service question$`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^${live} +\\(only in PostgreSQL\\) .*live service question$`, "m"));
    expect(listed.stdout).not.toContain(child);
    expect(listed.stdout).toMatch(new RegExp(`^${orphan} +\\(only in PostgreSQL\\) .*orphan question$`, "m"));
    expect((await runKosong(["sessions"], { cwd, home })).stdout).not.toContain(stale);

    const dry = await runKosong(["--store", pg.url, "sessions", "prune", "--older-than", "30d", "--dry-run"], { cwd, home });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${stale} .*stale service question$`, "m"));
    expect(dry.stdout).not.toMatch(new RegExp(`would remove ${live}`));
    expect(dry.stdout).toMatch(new RegExp(`^would remove ${orphan} `, "m"));
    expect(await ids()).toEqual([child, live, orphan, stale].sort());

    const pruned = await runKosong(["sessions", "prune", "--older-than", "30d"], { cwd, home, env: { KOSONG_STORE_URL: pg.url } });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(new RegExp(`^removed ${stale} `, "m"));
    expect(await ids()).toEqual([live]);
    expect(await pg.query(`SELECT count(*)::int AS n FROM rotations WHERE session_id = $1`, [stale])).toEqual([{ n: 0 }]);

    // --keep counts them too: keeping none removes the live one.
    const kept = await runKosong(["--store", pg.url, "sessions", "prune", "--keep", "0"], { cwd, home });
    expect(kept.stdout).toMatch(new RegExp(`^removed ${live} `, "m"));
    expect(await ids()).toEqual([]);
  });
});
