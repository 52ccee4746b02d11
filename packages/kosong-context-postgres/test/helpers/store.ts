/** Stores over the run's test server, each closed after its file. */
import { randomUUID } from "node:crypto";
import { afterAll, inject } from "vitest";
import { PostgresContextStore, type PostgresStoreOptions } from "@kosong/context-postgres";
import "./global-setup.js";

/** The test server's connection string. */
export const pgUrl = (): string => inject("pgUrl");

/** A store on the test server (schema `kosong` unless given), closed after the file's tests. */
export async function testStore(options: PostgresStoreOptions = {}): Promise<PostgresContextStore> {
  const store = await PostgresContextStore.connect(pgUrl(), { reconnectTimeoutMs: 5000, ...options });
  afterAll(() => store.close());
  return store;
}

/** A fresh session id. */
export const sessionId = (): string => `test-${randomUUID()}`;
