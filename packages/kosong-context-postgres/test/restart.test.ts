/**
 * The server stopped and started again (its own embedded server, since the
 * run's shared one must stay up): appends pending while it is down land
 * once it is back; appends whose retries run out fail with a typed error and
 * leave nothing behind. Every acknowledged append is present exactly once.
 */
import { extractText, type Message } from "@kosong/core";
import { StorageWriteError } from "@kosong/context";
import { messageRecord } from "@kosong/context/records";
import { PostgresContextStore } from "@kosong/context-postgres";
import { startEmbeddedPostgres } from "@kosong/context-postgres/testing";
import { afterAll, describe, expect, it } from "vitest";
import { sessionId } from "./helpers/store.js";

const record = (i: number) => messageRecord({ role: "user", content: [{ type: "text", text: `message ${i}` }] });
const texts = (messages: readonly Message[]) => messages.map((m) => extractText(m));
const expected = (numbers: readonly number[]) => numbers.map((i) => `message ${i}`);

const server = await startEmbeddedPostgres({ unsafeFast: true });
afterAll(() => server.destroy());

describe("the server stopped and restarted", () => {
  it("appends made while it is down are retried until it is back, then stored once, in order", async () => {
    const store = await PostgresContextStore.connect(server.url, { reconnectTimeoutMs: 20_000 });
    const id = sessionId();
    const log = await store.openLog(id);
    await log.append([record(0), record(1)]);
    await server.stop();
    const pending = [2, 3, 4].map((i) => log.append([record(i)]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.start();
    expect(await Promise.all(pending)).toEqual([2, 3, 4].map((i) => ({ position: i, end: i + 1 })));
    await log.append([record(5)]);
    expect(texts((await log.read()).messages)).toEqual(expected([0, 1, 2, 3, 4, 5]));
    await store.close();
  });

  it("appends whose retries run out fail with StorageWriteError, later writes too; after the restart a new writer finds only the acknowledged appends", async () => {
    const store = await PostgresContextStore.connect(server.url, { reconnectTimeoutMs: 400 });
    const id = sessionId();
    const log = await store.openLog(id);
    await log.append([record(0)]);
    await server.stop();
    await expect(log.append([record(1)])).rejects.toSatisfy(StorageWriteError.isInstance);
    await server.start();
    // The fate of the failed write was unknown to the log: it takes no more writes, even with the server back.
    await expect(log.append([record(2)])).rejects.toSatisfy(StorageWriteError.isInstance);
    await store.close();

    const next = await PostgresContextStore.connect(server.url);
    const reopened = await next.openLog(id);
    expect(texts((await reopened.read()).messages)).toEqual(expected([0]));
    await reopened.append([record(3)]);
    expect(texts((await reopened.read()).messages)).toEqual(expected([0, 3]));
    await next.close();
  });
});
