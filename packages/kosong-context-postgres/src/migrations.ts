/**
 * The schema of @kosong/context-postgres and its versioned migrations. Each
 * migration runs once per schema, in order, inside one transaction that
 * holds a transaction-level advisory lock on the schema's name: instances
 * that start at the same moment wait for each other, and the later ones find
 * the work done.
 */
import type { PoolClient } from "pg";
import { quoteIdentifier } from "./sql-names.js";

/** A schema change, applied once, in version order. */
export interface Migration {
  version: number;
  name: string;
  /** The statements, with `{schema}` standing for the quoted schema name. */
  sql: string;
}

/**
 * Version 1: sessions, their generations of records (the current log and
 * each rotation is a generation), and the rotations naming them.
 *
 * - `records` is keyed by (generation, position): an append, a restore and a
 *   truncation touch only the rows of one generation, however many sessions
 *   the table holds.
 * - `append_key` is an append call's idempotency key (on its first record):
 *   a retry after a lost connection finds it and does not write again.
 * - `epoch` fences writers: it is bumped by every writer that takes the
 *   session, and every write checks it, so a writer that lost its lock can
 *   never write after the next one took over.
 * - `last_op_key` / `last_op_result` make whole-log operations idempotent the
 *   same way.
 */
const v1 = `
CREATE SEQUENCE {schema}.generation_ids;
CREATE TABLE {schema}.sessions (
  session_id text PRIMARY KEY,
  current_generation bigint NOT NULL DEFAULT nextval('{schema}.generation_ids'),
  next_rotation integer NOT NULL DEFAULT 1,
  epoch bigint NOT NULL DEFAULT 0,
  owner_pid integer,
  owner_host text,
  last_op_key uuid,
  last_op_result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {schema}.records (
  generation_id bigint NOT NULL,
  seq integer NOT NULL,
  line text NOT NULL,
  append_key uuid,
  PRIMARY KEY (generation_id, seq)
);
CREATE UNIQUE INDEX records_append_key ON {schema}.records (generation_id, append_key) WHERE append_key IS NOT NULL;
CREATE TABLE {schema}.rotations (
  session_id text NOT NULL REFERENCES {schema}.sessions ON DELETE CASCADE,
  n integer NOT NULL,
  generation_id bigint NOT NULL,
  size integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, n)
);
`;

/** Version 2: a rotation's note, what it is as a branch (`ContextLog.annotateRotation`). */
const v2 = `ALTER TABLE {schema}.rotations ADD COLUMN note jsonb;`;

/** Every migration, oldest first. */
export const migrations: readonly Migration[] = [
  { version: 1, name: "sessions, records, rotations", sql: v1 },
  { version: 2, name: "rotation notes", sql: v2 },
];

/**
 * Brings `schema` up to the latest version on `client` (which must not be in
 * a transaction; on a failure the caller rolls back). Resolves to the versions applied now (empty when the schema
 * was current).
 */
export async function migrateSchema(client: PoolClient, schema: string): Promise<number[]> {
  const quoted = quoteIdentifier(schema);
  const applied: number[] = [];
  await client.query("BEGIN");
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`kosong-context-postgres migrate ${schema}`]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${quoted}.schema_migrations`);
  const done = new Set(rows.map((row) => row.version));
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await client.query(migration.sql.replaceAll("{schema}", quoted));
    await client.query(`INSERT INTO ${quoted}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
    applied.push(migration.version);
  }
  await client.query("COMMIT");
  return applied;
}
