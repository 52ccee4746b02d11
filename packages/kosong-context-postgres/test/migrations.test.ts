/**
 * The schema: created on first use, versioned, safe when several instances
 * start at once; appends and restores use the (generation, position) key,
 * whatever the number of sessions.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrations, PostgresContextStore } from "@kosong/context-postgres";
import { messageRecord } from "@kosong/context/records";
import { pgUrl } from "./helpers/store.js";

const admin = new pg.Client(pgUrl());
await admin.connect();
afterAll(() => admin.end());

const made: string[] = [];
/** A new schema name, dropped after the file's tests (KOSONG_TEST_PG_URL may name a server that outlives the run). */
const freshSchema = () => {
  const schema = `m_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  made.push(schema);
  return schema;
};
afterAll(async () => {
  for (const schema of made) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

describe("migrations", () => {
  it("eight stores starting at once on a new schema: all connect, each migration is applied once", async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 8 }, () => PostgresContextStore.connect(pgUrl(), { schema })));
    const { rows } = await admin.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(rows.map((row) => row.version)).toEqual(migrations.map((m) => m.version));
    expect(await stores[0]!.migrate()).toEqual([]);
    const log = await stores[3]!.openLog("s");
    await log.append([messageRecord({ role: "user", content: [{ type: "text", text: "works" }] })]);
    await log.close();
    await Promise.all(stores.map((store) => store.close()));
  });

  it("with migrate: false nothing is created until migrate() is called", async () => {
    const schema = freshSchema();
    const store = await PostgresContextStore.connect(pgUrl(), { schema, migrate: false });
    const exists = async () => (await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rowCount;
    expect(await exists()).toBe(0);
    expect(await store.migrate()).toEqual(migrations.map((m) => m.version));
    expect(await exists()).toBe(1);
    await store.close();
  });

  it("refuses a schema name that could carry SQL", async () => {
    for (const schema of ['kosong"; DROP TABLE x; --', "Upper", "1abc", ""]) {
      await expect(PostgresContextStore.connect(pgUrl(), { schema })).rejects.toThrow(TypeError);
    }
  });

  it("a restore's query is served by the (generation, position) key in order: no sort, no scan of other sessions' rows", async () => {
    await (await PostgresContextStore.connect(pgUrl())).close();
    await admin.query("BEGIN");
    // Tiny test tables make a sequential scan look cheapest: the question is whether the key serves the query.
    await admin.query("SET LOCAL enable_seqscan = off");
    await admin.query("SET LOCAL enable_bitmapscan = off");
    const { rows } = await admin.query("EXPLAIN SELECT seq, line FROM kosong.records WHERE generation_id = 1 ORDER BY seq");
    await admin.query("ROLLBACK");
    const plan = rows.map((row: Record<string, string>) => Object.values(row)[0]).join("\n");
    expect(plan).toMatch(/^Index Scan using records_pkey on records/);
    expect(plan).not.toMatch(/Sort/);
  });
});
