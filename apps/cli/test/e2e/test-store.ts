/**
 * For an e2e test file of `--store`: the built binary, and a client of the
 * run's PostgreSQL test server (the project's global setup starts it) to
 * look into what the binary stored. Read `.store` inside tests.
 */
import { PostgresContextStore } from "@kosong/context-postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { ensureBuilt } from "./kosong-binary.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The test server's connection string (packages/kosong-context-postgres/test/helpers/global-setup.ts). */
    pgUrl: string;
  }
}

/** The test server's URL and a store on it, open for the file's tests. */
export function useTestStore(): { readonly url: string; readonly store: PostgresContextStore } {
  const holder = { url: inject("pgUrl") } as { url: string; store: PostgresContextStore };
  beforeAll(async () => {
    ensureBuilt();
    holder.store = await PostgresContextStore.connect(holder.url);
  }, 300_000);
  afterAll(() => holder.store.close());
  return holder;
}
