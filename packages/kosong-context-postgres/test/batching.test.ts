/**
 * Group commit across sessions: the appends of many sessions of one store
 * in the same tick share one statement, each still fenced by its own
 * session's epoch.
 */
import { extractText } from "@kosong/core";
import { SessionLockedError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { PostgresContextStore } from "@kosong/context-postgres";
import { afterAll, describe, expect, it } from "vitest";
import { pgUrl, sessionId, testStore } from "./helpers/store.js";

const store = await testStore();
const other = await testStore();
const admin = new pg.Client(pgUrl());
await admin.connect();
afterAll(() => admin.end());
const record = (text: string) => messageRecord({ role: "user", content: [{ type: "text", text }] });

describe("appends of many sessions", () => {
  it("fifty sessions appending in the same tick share a statement or two, and each gets its own records", async () => {
    const logs = await Promise.all(Array.from({ length: 50 }, () => store.openLog(sessionId())));
    const before = store.stats;
    const receipts = await Promise.all(logs.map((log, i) => log.append([record(`first ${i}`), record(`second ${i}`)])));
    const after = store.stats;
    expect(after.groups - before.groups).toBe(50);
    expect(after.statements - before.statements).toBeLessThanOrEqual(2);
    expect(receipts.every((r) => r.position === 0 && r.end === 2)).toBe(true);
    const states = await Promise.all(logs.map((log) => log.read()));
    states.forEach((state, i) => expect(state.messages.map((m) => extractText(m))).toEqual([`first ${i}`, `second ${i}`]));
    await Promise.all(logs.map((log) => log.close()));
  });

  it("a group whose session was taken over meanwhile fails with SessionLockedError and writes nothing; a group of another session in flight with it lands", async () => {
    const name = `batching-${randomUUID()}`;
    const mine = await PostgresContextStore.connect({ connectionString: pgUrl(), application_name: name });
    afterAll(() => mine.close());
    const [taken, kept] = [sessionId(), sessionId()];
    const [a, b] = [await mine.openLog(taken), await mine.openLog(kept)];
    await a.append([record("a 0")]);
    // This store's connections end; another writer takes the session, writes and lets it go again.
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
    let thief = null;
    while (thief === null) thief = await other.openLog(taken).catch(() => null);
    await thief.append([record("thief")]);
    await thief.close();
    // Both appends in one tick: this store takes both locks again, but the epoch of `taken` moved on.
    const [lost, landed] = await Promise.allSettled([a.append([record("late")]), b.append([record("b 0")])]);
    expect(lost.status === "rejected" && SessionLockedError.isInstance(lost.reason)).toBe(true);
    expect(landed.status).toBe("fulfilled");
    await a.close();
    const check = await other.openLog(taken);
    expect((await check.read()).messages.map((m) => extractText(m))).toEqual(["a 0", "thief"]);
    await check.close();
    expect((await b.read()).messages.map((m) => extractText(m))).toEqual(["b 0"]);
  });
});
