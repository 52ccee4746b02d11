/**
 * Group commit across the sessions of one store: the append groups its logs
 * hand over in one tick (and while the previous statement was in flight) go
 * out as one INSERT, one round trip and one commit, however many sessions
 * they belong to. Each group is still fenced by its own session's epoch and
 * deduplicated by its own idempotency key: a group whose session was taken
 * over is left out (and reported as not owned), the others land.
 */
import { GroupCommitQueue } from "@kosong/context";
import type { Pool } from "pg";

/** One log's appends, ready to write. */
export interface AppendGroup {
  sessionId: string;
  /** The writer's epoch: the group lands only while the session still has it. */
  epoch: string;
  /** The current generation the log writes to. */
  generation: string;
  /** The position of the first line. */
  start: number;
  lines: readonly string[];
  /** Each line's idempotency key (an append call's key on its first line, else null). */
  keys: ReadonlyArray<string | null>;
  /** The group's first key: found in the generation, the group already landed. */
  firstKey: string;
}

/** Counters of a store's appends since it connected. */
export interface AppendStats {
  /** INSERT statements sent (one per flush; retries count again). */
  statements: number;
  /** Append groups written by them (one per log per flush). */
  groups: number;
}

/** Batches append groups of many sessions into one statement per flush. */
export class AppendBatcher {
  readonly #pool: Pool;
  readonly #sql: string;
  /** The groups handed over, written together by one statement per flush. */
  readonly #queue = new GroupCommitQueue<AppendGroup, boolean>(async (groups) => {
    const owned = await this.#write(groups);
    return groups.map((group) => owned.has(group.sessionId));
  });
  readonly #stats: AppendStats = { statements: 0, groups: 0 };

  /** `schema` is the quoted schema name. */
  constructor(pool: Pool, schema: string) {
    this.#pool = pool;
    this.#sql = `WITH g AS (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::uuid[]) AS g(session_id, epoch, generation, first_key)
      ), s AS (
        SELECT s.session_id FROM ${schema}.sessions s JOIN g ON s.session_id = g.session_id AND s.epoch = g.epoch AND s.current_generation = g.generation
        ORDER BY s.session_id FOR UPDATE OF s
      ), touched AS (
        UPDATE ${schema}.sessions t SET updated_at = now() FROM s WHERE t.session_id = s.session_id RETURNING 1
      ), dup AS (
        SELECT g.generation FROM g JOIN ${schema}.records r ON r.generation_id = g.generation AND r.append_key = g.first_key
      ), ins AS (
        INSERT INTO ${schema}.records (generation_id, seq, line, append_key)
        SELECT t.generation, t.seq, t.line, t.k FROM unnest($5::bigint[], $6::integer[], $7::text[], $8::uuid[]) AS t(generation, seq, line, k)
        WHERE t.generation IN (SELECT g.generation FROM g JOIN s USING (session_id)) AND t.generation NOT IN (SELECT generation FROM dup)
        RETURNING 1
      )
      SELECT g.session_id, EXISTS (SELECT 1 FROM s WHERE s.session_id = g.session_id) AS owned, (SELECT count(*) FROM ins)::integer AS inserted FROM g`;
  }

  get stats(): AppendStats {
    return { ...this.#stats };
  }

  /**
   * Writes `group` with the others of its flush; resolves to false when its
   * session no longer has the group's epoch or generation (nothing of it was
   * written). Rejects with the statement's error (a lost connection: the
   * caller retries; the key keeps a landed group from landing twice).
   */
  submit(group: AppendGroup): Promise<boolean> {
    return this.#queue.append(group);
  }

  /** One statement for every group; resolves to the sessions whose groups were owned. */
  async #write(groups: readonly AppendGroup[]): Promise<Set<string>> {
    const rowGenerations: string[] = [];
    const seqs: number[] = [];
    const lines: string[] = [];
    const keys: Array<string | null> = [];
    for (const group of groups) {
      group.lines.forEach((line, i) => {
        rowGenerations.push(group.generation);
        seqs.push(group.start + i);
        lines.push(line);
        keys.push(group.keys[i] ?? null);
      });
    }
    this.#stats.statements += 1;
    this.#stats.groups += groups.length;
    const { rows } = await this.#pool.query<{ session_id: string; owned: boolean }>(this.#sql, [
      groups.map((g) => g.sessionId),
      groups.map((g) => g.epoch),
      groups.map((g) => g.generation),
      groups.map((g) => g.firstKey),
      rowGenerations,
      seqs,
      lines,
      keys,
    ]);
    return new Set(rows.filter((row) => row.owned).map((row) => row.session_id));
  }
}
