/**
 * For an e2e test file of `--store`: the built binary, and a client of the
 * run's PostgreSQL test server (the project's global setup starts it) to
 * look into what the binary stored. Read `.store` inside tests.
 */
import { extractText } from "@kosong/core";
import { PostgresContextStore } from "@kosong/context-postgres";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { ensureBuilt } from "./kosong-binary.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The test server's connection string (packages/kosong-context-postgres/test/helpers/global-setup.ts). */
    pgUrl: string;
  }
}

/** The test server's URL, a store on it, and plain SQL on the store's schema (`kosong`), open for the file's tests. */
export function useTestStore(): { readonly url: string; readonly store: PostgresContextStore; query(sql: string, values?: unknown[]): Promise<unknown[]> } {
  let pool: pg.Pool | null = null;
  const holder = {
    url: inject("pgUrl"),
    store: null as unknown as PostgresContextStore,
    async query(sql: string, values: unknown[] = []): Promise<unknown[]> {
      pool ??= new pg.Pool({ connectionString: holder.url, options: "-c search_path=kosong" });
      return (await pool.query(sql, values)).rows;
    },
  };
  beforeAll(async () => {
    ensureBuilt();
    holder.store = await PostgresContextStore.connect(holder.url);
  }, 300_000);
  afterAll(async () => {
    await pool?.end();
    await holder.store.close();
  });
  return holder;
}

/** Session `id`'s conversation in `store` as `role: text` lines, without the `<system>` notes kosong adds as user messages. */
export async function storedConversation(store: PostgresContextStore, id: string): Promise<string[]> {
  const log = await store.openLog(id);
  try {
    return (await log.read()).messages.filter((m) => m.role !== "user" || !extractText(m).startsWith("<system>")).map((m) => `${m.role}: ${extractText(m)}`);
  } finally {
    await log.close();
  }
}
