/**
 * One writer per session: in one process, across stores, across real
 * processes; and a writer whose connection died loses the session to the
 * next one, and its later writes fail without writing.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { extractText } from "@kosong/core";
import { SessionLockedError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertDistIsFresh, startChild } from "./helpers/child.js";
import { pgUrl, sessionId, testStore } from "./helpers/store.js";

const first = await testStore();
const second = await testStore();
const record = (text: string) => messageRecord({ role: "user", content: [{ type: "text", text }] });

describe("one writer per session", () => {
  it("a second store gets SessionLockedError naming the holder; once the first closes, it opens", async () => {
    const id = sessionId();
    const log = await first.openLog(id);
    const refused = await second.openLog(id).catch((error: unknown) => error);
    expect(SessionLockedError.isInstance(refused)).toBe(true);
    expect((refused as SessionLockedError).owner.pid).toBe(process.pid);
    expect((refused as SessionLockedError).message).toContain(id);
    await log.close();
    const taken = await second.openLog(id);
    await taken.close();
  });

  it("the same store refuses a second open handle of a session", async () => {
    const id = sessionId();
    const log = await first.openLog(id);
    await expect(first.openLog(id)).rejects.toThrow(/another open handle in this process/);
    await log.close();
    await (await first.openLog(id)).close();
  });

  it("rejects session ids that are empty, huge or carry control characters", async () => {
    for (const bad of ["", "x".repeat(513), "a\u0000b", "line\nbreak", 7 as unknown as string]) {
      await expect(first.openLog(bad)).rejects.toThrow(TypeError);
    }
  });
});

describe("across processes", () => {
  beforeAll(assertDistIsFresh);
  const admin = new pg.Client(pgUrl());
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());

  it("two processes contend for one session: exactly one writes, the other gets SessionLockedError", async () => {
    const id = sessionId();
    const children = [startChild(["contend", pgUrl(), id, "20"]), startChild(["contend", pgUrl(), id, "20"])];
    for (const child of children) child.send("go");
    const outcomes = await Promise.all(children.map((child) => child.next(/^(won|locked)/)));
    expect(outcomes.filter((line) => line === "won")).toHaveLength(1);
    const winner = children[outcomes.indexOf("won")]!;
    const loser = outcomes.find((line) => line.startsWith("locked"))!;
    expect(loser).toBe(`locked ${winner.process.pid}`);
    await winner.next(/^done$/);
    expect(await Promise.all(children.map((child) => child.finish()))).toEqual([0, 0]);
    const log = await first.openLog(id);
    const texts = (await log.read()).messages.map((m) => extractText(m));
    expect(texts).toEqual(Array.from({ length: 20 }, (_, i) => `${winner.process.pid} ${i}`));
    await log.close();
  });

  it("a writer whose connections died loses the lock: another takes the session over, and the old writer's next append fails and writes nothing", async () => {
    const id = sessionId();
    const name = `holder-${randomUUID()}`;
    const holder = startChild(["hold", pgUrl(), id, name]);
    await holder.next(/^ready$/);
    await expect(first.openLog(id)).rejects.toSatisfy(SessionLockedError.isInstance);
    // The holder's connections end (as when its machine drops off the network and the server notices).
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
    let log = null;
    while (log === null) log = await first.openLog(id).catch(() => null);
    await log.append([record("taken over")]);
    holder.send("append 1");
    expect(await holder.next(/^(acked|failed)/)).toBe("failed SessionLockedError");
    expect((await log.read()).messages.map((m) => extractText(m))).toEqual(["held 0", "taken over"]);
    await log.close();
    expect(await holder.finish()).toBe(0);
  });
});
