/**
 * A session's children as they travel with it: `kosong export` carries
 * them (embedded in Markdown and HTML, in a folder beside a JSONL file),
 * `kosong import` and `/fork` put them into the new session. Each is its
 * record and its current conversation (not its rotations). Children read
 * from a file are hostile input: a child whose id is not an agent id, or
 * whose record lacks what the CLI reads, is skipped.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { tokenUsage, lazySchema } from "@kosong/core";
import { type ContextRecord, decodeRecordLine, encodeRecord } from "@kosong/context/records";
import * as z from "zod";
import { agentIdPattern, type SubagentRecord, type SubagentStore } from "./subagent-store.js";

/** One child as carried: its record and its conversation's records. */
export interface CarriedChild {
  record: SubagentRecord;
  records: ContextRecord[];
}

/** Every child of `store` with its conversation as written so far (read without locks), oldest first. */
export async function readChildren(store: SubagentStore): Promise<CarriedChild[]> {
  const out: CarriedChild[] = [];
  for (const record of await store.list()) out.push({ record, records: await store.readRecords(record.id) });
  return out;
}

/**
 * Puts `children` into `store`, children of session `parentSession` now;
 * one that was running where it came from is "interrupted" here (resumable).
 */
export async function writeChildren(store: SubagentStore, parentSession: string, children: readonly CarriedChild[]): Promise<void> {
  for (const { record, records } of children) {
    await store.put({ ...record, parent_session: parentSession, status: record.status === "running" ? "interrupted" : record.status }, records);
  }
}

const recordSchema = lazySchema(() =>
  z.object({
    id: z.string().regex(agentIdPattern),
    subagent_type: z.string().min(1).max(200),
    description: z.string().max(2000),
    parent_session: z.string().max(200),
    parent_tool_call_id: z.string().max(200),
    parent_checkpoint: z.number().int().nonnegative(),
    model: z.string().max(200),
    background: z.boolean(),
    status: z.enum(["running", "finished", "failed", "aborted", "interrupted", "detached"]),
    usage: z.object({ input_other: z.number(), output: z.number(), input_cache_read: z.number(), input_cache_creation: z.number() }).catch(tokenUsage()),
    cost: z.number().nullable().catch(null),
    last_result: z.string().catch(""),
    created: z.string().max(100),
    turns: z.array(z.object({ parent_tool_call_id: z.string().max(200), parent_checkpoint: z.number().int().nonnegative(), label: z.string().max(500) })).catch([]),
  }),
);

/**
 * The record `value` (from an export) as a child's record, or null when it
 * is not one. Rotation fields are dropped: an export carries no rotation.
 */
export function parseChildRecord(value: unknown): SubagentRecord | null {
  const parsed = recordSchema().safeParse(value);
  if (!parsed.success) return null;
  const record: SubagentRecord = parsed.data;
  // Detached children come without the rotation that held their conversation: what was carried is the conversation now.
  return record.status === "detached" ? { ...record, status: "finished" } : record;
}

/** The records of a context file's text; damaged lines are skipped and counted. */
export function decodeRecords(jsonl: string): { records: ContextRecord[]; skipped: number } {
  const records: ContextRecord[] = [];
  let skipped = 0;
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const decoded = decodeRecordLine(line);
    if (decoded.ok) records.push(decoded.record);
    else skipped++;
  }
  return { records, skipped };
}

/** `records` as a context file's text (kimi-cli's format). */
export function encodeRecords(records: readonly ContextRecord[]): string {
  return records.map((r) => `${encodeRecord(r)}\n`).join("");
}

/** `children` as one JSON text (what Markdown and HTML exports embed). */
export function childrenToJson(children: readonly CarriedChild[]): string {
  return JSON.stringify(children.map(({ record, records }) => ({ record, context: encodeRecords(records) })));
}

/** The children of {@link childrenToJson}'s text; entries that are not a child are skipped (and counted). */
export function childrenFromJson(text: string): { children: CarriedChild[]; skipped: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { children: [], skipped: 1 };
  }
  if (!Array.isArray(value)) return { children: [], skipped: 1 };
  return collect(value.map((entry: unknown) => {
    const { record, context } = (entry ?? {}) as { record?: unknown; context?: unknown };
    const parsed = parseChildRecord(record);
    return parsed === null || typeof context !== "string" ? null : { record: parsed, records: decodeRecords(context).records };
  }));
}

/** Writes `children` into a new folder `dir` (beside a JSONL export): `<agent id>/agent.json` and `<agent id>/context.jsonl` each, as in a session folder. */
export async function writeChildrenFolder(dir: string, children: readonly CarriedChild[]): Promise<void> {
  await mkdir(dir, { mode: 0o700 });
  for (const { record, records } of children) {
    await mkdir(path.join(dir, record.id), { mode: 0o700 });
    await writeFile(path.join(dir, record.id, "agent.json"), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    await writeFile(path.join(dir, record.id, "context.jsonl"), encodeRecords(records), { mode: 0o600, flag: "wx" });
  }
}

/** The children in folder `dir` ({@link writeChildrenFolder}'s layout); none when there is no such folder. */
export async function readChildrenFolder(dir: string): Promise<{ children: CarriedChild[]; skipped: number }> {
  const names = await readdir(dir).catch(() => null);
  if (names === null) return { children: [], skipped: 0 };
  const found = await Promise.all(
    // Other names (a file a tool left there) are not children: not counted.
    names.filter((name) => agentIdPattern.test(name)).map(async (name) => {
      try {
        const record = parseChildRecord(JSON.parse(await readFile(path.join(dir, name, "agent.json"), "utf8")));
        if (record === null || record.id !== name) return null;
        return { record, records: decodeRecords(await readFile(path.join(dir, name, "context.jsonl"), "utf8")).records };
      } catch {
        return null;
      }
    }),
  );
  return collect(found);
}

function collect(found: ReadonlyArray<CarriedChild | null>): { children: CarriedChild[]; skipped: number } {
  const children = found.filter((c): c is CarriedChild => c !== null).sort((a, b) => a.record.created.localeCompare(b.record.created));
  return { children, skipped: found.length - children.length };
}
