/**
 * Session management on a real PostgreSQL, as a multi-user service needs it:
 * listing (size, rotations, updated time, first prompt), deleting with
 * rotations, and taking a session over from a writer that still holds its
 * advisory lock but has been idle past the lease (a user moved to another
 * instance); the old writer's next append fails and writes nothing. The
 * lock error names the advisory lock, not a lock file.
 */
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { extractText, userMessage } from "@kosong/core";
import { SessionLockedError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { afterAll, describe, expect, it } from "vitest";
import { pgUrl, sessionId, testStore } from "./helpers/store.js";

const user = (text: string) => messageRecord(userMessage(text));
const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
afterAll(() => admin.end());

/** Makes session `id` of `schema` look unwritten for two hours. */
async function age(schema: string, id: string): Promise<void> {
  await admin.query(`UPDATE "${schema}".sessions SET updated_at = now() - interval '2 hours' WHERE session_id = $1`, [id]);
}

describe("sessions of the Postgres store", () => {
  it("lists sessions with size, rotations, updated time and first prompt, and deletes one with its rotations", async () => {
    const schema = `sessions_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const store = await testStore({ schema });
    const other = await testStore({ schema });
    expect(await store.listSessions()).toEqual([]);
    const log = await store.openLog("alpha");
    await log.append([user("<system>CHECKPOINT 0</system>"), user("Plan the trip to Kyoto")]);
    const later = await log.append([user("and book it")]);
    await log.truncateAndRotate(later.position, [user("second version")]);
    await log.close();
    const beta = await store.openLog("beta");
    await beta.append([user("x".repeat(500))]);

    const sessions = await store.listSessions();
    expect(sessions.map((s) => s.id)).toEqual(["beta", "alpha"]);
    const alpha = sessions[1]!;
    expect(alpha).toMatchObject({ id: "alpha", rotations: 1, firstPrompt: "Plan the trip to Kyoto" });
    expect(alpha.updatedAt).toBeInstanceOf(Date);
    const exported = path.join(os.tmpdir(), `kosong-export-${randomUUID()}.jsonl`);
    await store.exportSession("alpha", exported);
    expect(alpha.size).toBe((await stat(exported)).size);
    expect(sessions[0]!.firstPrompt).toBe(`${"x".repeat(197)}...`);

    // In use elsewhere: refused, naming the advisory lock.
    const refused = await other.deleteSession("beta").catch((error: unknown) => error);
    expect(SessionLockedError.isInstance(refused)).toBe(true);
    expect((refused as SessionLockedError).message).toContain(`PostgreSQL advisory lock "kosong-context-postgres ${schema} beta"`);
    expect((refused as SessionLockedError).message).not.toContain("lock file");
    await beta.close();

    const generations = await admin.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${schema}".records r WHERE r.generation_id IN (SELECT current_generation FROM "${schema}".sessions WHERE session_id = 'alpha'
         UNION SELECT generation_id FROM "${schema}".rotations WHERE session_id = 'alpha')`,
    );
    expect(Number(generations.rows[0]!.n)).toBeGreaterThan(0);
    const before = await admin.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${schema}".records`);
    expect(await other.deleteSession("alpha")).toBe(true);
    expect((await store.listSessions()).map((s) => s.id)).toEqual(["beta"]);
    const after = await admin.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${schema}".records`);
    // Every record of alpha (its log and its rotation) is gone; beta's stays.
    expect(Number(after.rows[0]!.n)).toBe(1);
    expect(Number(before.rows[0]!.n)).toBeGreaterThan(1);
    expect(await other.deleteSession("alpha")).toBe(false);
  });

  it("takes a session over from a writer idle past the lease; the old writer's next append fails and writes nothing", async () => {
    const holder = await testStore();
    const mover = await testStore({ leaseMs: 60_000 });
    const id = sessionId();
    const old = await holder.openLog(id);
    await old.append([user("before the move")]);

    // The holder wrote a moment ago: within its lease.
    const refused = await mover.openLog(id).catch((error: unknown) => error);
    expect(SessionLockedError.isInstance(refused)).toBe(true);
    expect((refused as SessionLockedError).message).toMatch(/PostgreSQL advisory lock ".*"; it can be taken over once idle for 60000 ms/);
    expect((refused as SessionLockedError).owner.pid).toBe(process.pid);

    // An append counts as activity: aged, then written again, the session stays the holder's.
    await age("kosong", id);
    await old.append([user("still here")]);
    await expect(mover.openLog(id)).rejects.toThrowError(SessionLockedError);

    await age("kosong", id);
    const moved = await mover.openLog(id);
    await moved.append([user("after the move")]);
    await expect(old.append([user("lost write")])).rejects.toThrowError(SessionLockedError);
    expect((await moved.read()).messages.map((m) => extractText(m))).toEqual(["before the move", "still here", "after the move"]);
    await old.close();
    await moved.close();
  });

  it("without a lease, an idle writer keeps its session", async () => {
    const holder = await testStore();
    const other = await testStore();
    const id = sessionId();
    const log = await holder.openLog(id);
    await log.append([user("mine")]);
    await age("kosong", id);
    await expect(other.openLog(id)).rejects.toThrowError(SessionLockedError);
    await expect(other.deleteSession(id)).rejects.toThrowError(SessionLockedError);
    await log.close();
    expect(await other.deleteSession(id)).toBe(true);
  });
});
