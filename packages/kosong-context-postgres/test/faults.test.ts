/**
 * Connection faults: a lost acknowledgement after a commit, connections
 * terminated by the server (pg_terminate_backend from a second connection)
 * during appends and during a whole-log operation. Every acknowledged
 * append is present exactly once, in order, and nothing half-written shows.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { extractText, type Message } from "@kosong/core";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresContextStore } from "@kosong/context-postgres";
import { messageRecord } from "@kosong/context/records";
import { startCuttingProxy } from "./helpers/cutting-proxy.js";
import { pgUrl, sessionId } from "./helpers/store.js";

const text = (i: number) => `message ${i}`;
const record = (i: number) => messageRecord({ role: "user", content: [{ type: "text", text: text(i) }] });
const texts = (messages: readonly Message[]) => messages.map((m) => extractText(m));

/** A store whose connections carry `application_name`, so a second connection can find and end them. */
async function namedStore(applicationName: string, url = pgUrl()): Promise<PostgresContextStore> {
  const store = await PostgresContextStore.connect({ connectionString: url, application_name: applicationName }, { reconnectTimeoutMs: 10_000 });
  afterAll(() => store.close());
  return store;
}

const admin = new pg.Client(pgUrl());
await admin.connect();
afterAll(() => admin.end());

async function terminate(applicationName: string, where = "true"): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ${where}) t`,
    [applicationName],
  );
  return rows[0]!.n;
}

/** A log whose connections go through a cutting proxy. */
async function behindProxy() {
  const url = new URL(pgUrl());
  const proxy = await startCuttingProxy(Number(url.port));
  afterAll(() => proxy.close());
  url.port = String(proxy.port);
  const store = await namedStore(`cut-${randomUUID()}`, url.toString());
  return { proxy, log: await store.openLog(sessionId()) };
}

describe("a lost acknowledgement", () => {
  it("an append whose commit landed but whose answer was lost is retried and found by its idempotency key: stored once", async () => {
    const { proxy, log } = await behindProxy();
    await log.append([record(0)]);
    // The append statement is the one that names append_key; its answer is a one-row SELECT.
    proxy.cutAfter("append_key", "SELECT 1\0");
    const receipt = await log.append([record(1), record(2)]);
    expect(proxy.cuts).toBe(1);
    expect(receipt).toEqual({ position: 1, end: 3 });
    expect(await log.append([record(3)])).toEqual({ position: 3, end: 4 });
    expect(texts((await log.read()).messages)).toEqual([0, 1, 2, 3].map(text));
    await log.close();
  });

  it("a whole-log operation whose commit landed but whose answer was lost is not done twice", async () => {
    const { proxy, log } = await behindProxy();
    await log.append([record(0), record(1), record(2)]);
    // The COMMIT of the truncation's transaction: its answer is the command tag COMMIT.
    proxy.cutAfter("COMMIT", "COMMIT\0");
    const truncation = await log.truncateAndRotate(1, [record(9)]);
    expect(proxy.cuts).toBe(1);
    expect(truncation).toMatchObject({ n: 1, positions: [1], end: 2 });
    expect(texts((await log.read()).messages)).toEqual([text(0), text(9)]);
    expect((await log.listRotations()).map((r) => [r.n, r.size])).toEqual([[1, 3]]);
    await log.close();
  });
});

describe("connections terminated by the server", () => {
  it("appends go on through pg_terminate_backend of every connection, mid-append, 30 times: each acknowledged append is stored once, in order", async () => {
    const name = `terminated-${randomUUID()}`;
    const store = await namedStore(name);
    const log = await store.openLog(sessionId());
    let terminated = 0;
    const acknowledged: number[] = [];
    for (let round = 0; round < 30; round += 1) {
      // Ten appends in flight, and every connection of the store (the lock's too) ended from a second connection meanwhile.
      const pending = Array.from({ length: 10 }, (_, j) => round * 10 + j).map((i) => log.append([record(i)]).then(() => acknowledged.push(i)));
      terminated += await terminate(name);
      await Promise.all(pending);
    }
    expect(terminated).toBeGreaterThanOrEqual(30);
    expect(acknowledged).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const state = await log.read();
    expect(texts(state.messages)).toEqual(acknowledged.map(text));
    await log.close();
  });

  it("a truncation whose connection is terminated while it waits inside its transaction is retried and done once", async () => {
    const name = `terminated-${randomUUID()}`;
    const store = await namedStore(name);
    const id = sessionId();
    const log = await store.openLog(id);
    await log.append([record(0), record(1), record(2)]);
    // A second connection holds the session row, so the truncation blocks inside its transaction.
    const blocker = new pg.Client(pgUrl());
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query("SELECT 1 FROM kosong.sessions WHERE session_id = $1 FOR UPDATE", [id]);
    const truncation = log.truncateAndRotate(1, [record(7)]);
    let ended = 0;
    while (ended === 0) {
      ended = await terminate(name, "wait_event_type = 'Lock'");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await blocker.query("COMMIT");
    await blocker.end();
    expect(await truncation).toMatchObject({ n: 1, positions: [1], end: 2 });
    expect(texts((await log.read()).messages)).toEqual([text(0), text(7)]);
    expect((await log.listRotations()).map((r) => r.n)).toEqual([1]);
    await log.close();
  });
});
