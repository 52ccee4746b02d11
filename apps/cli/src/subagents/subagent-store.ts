/**
 * The children of a session, kept beside its conversation: one folder per
 * child under the session's `agents/` folder, holding an `agent.json`
 * record (its kind, the parent call and checkpoint it belongs to, status,
 * usage, cost) and the child's own `context.jsonl`, or, when the parent's
 * conversation is in a store (PostgreSQL), the child's conversation in the
 * same store ({@link ChildLogs}). The record is replaced whole (written to a
 * temporary file, then renamed), so a crash leaves the old record or the
 * new one.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { tokenUsage, type TokenUsage } from "@kosong/core";
import type { ContextLog } from "@kosong/context";
import { type ContextRecord, encodeRecord, scanContextFile } from "@kosong/context/records";
import { Context } from "@kosong/soul";
import { replaceFile } from "../files/replace-file.js";

/** Where a child stands. */
export type SubagentStatus = "running" | "finished" | "failed" | "aborted" | "interrupted" | "detached";

/** What is kept about one child. */
export interface SubagentRecord {
  id: string;
  subagent_type: string;
  /** The short description the parent's model gave its task. */
  description: string;
  /** The parent's session, tool call and checkpoint (the step that ran the call). */
  parent_session: string;
  parent_tool_call_id: string;
  parent_checkpoint: number;
  model: string;
  background: boolean;
  status: SubagentStatus;
  /** Every turn's tokens, added up. */
  usage: TokenUsage;
  /** USD, null when the model's price is unknown. */
  cost: number | null;
  /** The last turn's final answer or error, cut to 2,000 characters. */
  last_result: string;
  created: string;
  /** When the parent's revert detached it: the rotation of its conversation that `/agents restore` brings back. */
  detached_rotation?: number;
  /** Each turn the child ran: the parent's call and checkpoint, and the label of the child's turn checkpoint (its link to the call). */
  turns: SubagentTurn[];
  /** The turns a revert took back (what `/agents restore` gives back with the rotation). */
  detached_turns?: SubagentTurn[];
}

/** One turn of a child: which call of the parent ran it, at which checkpoint of the parent. */
export interface SubagentTurn {
  parent_tool_call_id: string;
  parent_checkpoint: number;
  /** The label of the child's checkpoint for the turn (`<parent session>/<parent call>`). */
  label: string;
}

/** Where the children's conversations live when not in their folders: the parent's store. */
export interface ChildLogs {
  /** Opens (and locks) child `id`'s conversation log. */
  open(id: string): Promise<ContextLog>;
  /** Child `id`'s current conversation, read without its lock. */
  read(id: string): Promise<ContextRecord[]>;
  /** Creates child `id`'s conversation holding `records` (it must not exist yet). */
  write(id: string, records: readonly ContextRecord[]): Promise<void>;
}

/** An id of the store's shape: what a model's `resume` must look like before it names a folder. */
export const agentIdPattern = /^agent-[0-9a-f]{8}$/;

/** The children of one session. */
export class SubagentStore {
  readonly dir: string;
  readonly #logs: ChildLogs | null;

  /** Records in `dir`; the children's conversations there too, or in `logs` when given. */
  constructor(dir: string, logs: ChildLogs | null = null) {
    this.dir = dir;
    this.#logs = logs;
  }

  /** Child `id`'s conversation, not yet restored (close it when done). */
  async openContext(id: string): Promise<Context> {
    return new Context(this.#logs === null ? this.contextFile(id) : await this.#logs.open(id));
  }

  /**
   * Child `id`'s current conversation as written so far, read without its
   * lock (so also while it runs, here or in another process) and without
   * changing it (a cut tool call stays unanswered).
   */
  async readRecords(id: string): Promise<ContextRecord[]> {
    if (this.#logs !== null) return this.#logs.read(id);
    const records: ContextRecord[] = [];
    await scanContextFile(this.contextFile(id), ({ record }) => records.push(record));
    return records;
  }

  /**
   * Adds child `record` holding the conversation `records` (an import, a
   * fork): its folder and record, and its conversation (a new file, or a
   * new session in the store). Throws when the child exists already.
   */
  async put(record: SubagentRecord, records: readonly ContextRecord[]): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await mkdir(this.#folder(record.id), { mode: 0o700 });
    if (this.#logs !== null) await this.#logs.write(record.id, records);
    else await writeFile(this.contextFile(record.id), records.map((r) => `${encodeRecord(r)}\n`).join(""), { mode: 0o600, flag: "wx" });
    await this.save(record);
  }

  /** A fresh id. */
  newId(): string {
    return `agent-${randomBytes(4).toString("hex")}`;
  }

  /** The child's conversation file (used when the conversations are not in a store). */
  contextFile(id: string): string {
    return path.join(this.#folder(id), "context.jsonl");
  }

  /** Writes a new record (its folder made). */
  async create(record: Omit<SubagentRecord, "usage" | "cost" | "last_result" | "created" | "turns">): Promise<SubagentRecord> {
    const full: SubagentRecord = { ...record, usage: tokenUsage(), cost: null, last_result: "", created: new Date().toISOString(), turns: [] };
    await mkdir(this.#folder(record.id), { recursive: true, mode: 0o700 });
    await this.save(full);
    return full;
  }

  /** Replaces a record. */
  async save(record: SubagentRecord): Promise<void> {
    await replaceFile(path.join(this.#folder(record.id), "agent.json"), `${JSON.stringify(record, null, 2)}\n`);
  }

  /** The record of `id`, null when there is none (or `id` is not an id). */
  async get(id: string): Promise<SubagentRecord | null> {
    if (!agentIdPattern.test(id)) return null;
    try {
      return JSON.parse(await readFile(path.join(this.#folder(id), "agent.json"), "utf8")) as SubagentRecord;
    } catch {
      return null;
    }
  }

  /** Every record, oldest first. */
  async list(): Promise<SubagentRecord[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const records = await Promise.all(names.filter((n) => agentIdPattern.test(n)).map((n) => this.get(n)));
    return records.filter((r): r is SubagentRecord => r !== null).sort((a, b) => a.created.localeCompare(b.created));
  }

  /**
   * The children a crash cut (still "running" in their record when the
   * session opens): each is marked "interrupted", and its conversation is
   * read once (answering a cut tool call, as any restore), to say how much
   * of it was kept.
   */
  async recoverCut(): Promise<Array<{ record: SubagentRecord; messages: number; interruptedCalls: number; damagedLines: number }>> {
    const cut = (await this.list()).filter((r) => r.status === "running");
    const out = [];
    for (const record of cut) {
      const context = await this.openContext(record.id);
      try {
        const report = await context.restore();
        out.push({ record, messages: context.history.length, interruptedCalls: report.interruptedToolCalls.length, damagedLines: report.skipped.length });
      } finally {
        await context.close();
      }
      await this.save({ ...record, status: "interrupted" });
    }
    return out;
  }

  /**
   * After the parent reverted to `checkpoint`: each child's turns run by
   * calls at that checkpoint or later are taken back. The child's
   * conversation is reverted to the first such turn (the whole log before
   * kept as a rotation, `detached_rotation`); a child left with no turn is
   * "detached" (`/agents restore` brings its conversation back), one with
   * earlier turns keeps them. Running children are left alone. Returns the
   * records changed.
   */
  async detachFrom(checkpoint: number, running: ReadonlySet<string>): Promise<SubagentRecord[]> {
    const changed: SubagentRecord[] = [];
    for (const record of await this.list()) {
      if (record.status === "detached" || running.has(record.id)) continue;
      const turns = record.turns ?? [];
      const first = turns.findIndex((t) => t.parent_checkpoint >= checkpoint);
      if (first < 0) continue;
      const context = await this.openContext(record.id);
      try {
        await context.restore();
        const found = context.checkpoints.some((c) => c.label === turns[first]!.label);
        const rotation = found ? (await context.revertTo(turns[first]!.label)).rotation : await context.clear();
        const kept = turns.slice(0, first);
        const updated: SubagentRecord = { ...record, turns: kept, detached_turns: turns.slice(first), detached_rotation: rotation.n, ...(kept.length === 0 && { status: "detached" as const }) };
        await this.save(updated);
        changed.push(updated);
      } finally {
        await context.close();
      }
    }
    return changed;
  }

  #folder(id: string): string {
    if (!agentIdPattern.test(id)) throw new RangeError(`not an agent id: ${JSON.stringify(id)}`);
    return path.join(this.dir, id);
  }
}
