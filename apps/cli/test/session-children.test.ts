/**
 * Children read from an export are hostile input: entries that are not a
 * child (a bad id, a record missing what the CLI reads, a folder name that
 * is not the record's id, not JSON at all) are skipped and counted, the
 * valid ones kept; a detached child comes back as finished (an export
 * carries no rotation).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { tokenUsage } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { type CarriedChild, childrenFromJson, childrenToJson, readChildrenFolder, writeChildrenFolder } from "../src/subagents/session-children.js";
import type { SubagentRecord } from "../src/subagents/subagent-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

const record = (id: string, extra: Partial<SubagentRecord> = {}): SubagentRecord => ({
  id,
  subagent_type: "explore",
  description: "find it",
  parent_session: "s1",
  parent_tool_call_id: "call_a",
  parent_checkpoint: 1,
  model: "m",
  background: false,
  status: "finished",
  usage: tokenUsage(),
  cost: null,
  last_result: "found",
  created: "2026-01-01T00:00:00.000Z",
  turns: [],
  ...extra,
});
const child = (id: string, extra: Partial<SubagentRecord> = {}): CarriedChild => ({ record: record(id, extra), records: [{ kind: "message", message: { role: "user", content: [{ type: "text", text: `task of ${id}` }] } }] });

describe("children carried by an export", () => {
  it("round-trips through the embedded JSON, skipping entries that are not a child", () => {
    const good = child("agent-0000000a", { status: "detached", detached_rotation: 2 });
    const json = JSON.parse(childrenToJson([good])) as unknown[];
    const hostile = [...json, { record: { ...record("../../etc"), id: "../../etc" }, context: "" }, { record: { id: "agent-0000000b" }, context: "" }, "nonsense", null, { record: record("agent-0000000c") }];
    const { children, skipped } = childrenFromJson(JSON.stringify(hostile));
    expect(skipped).toBe(5);
    expect(children).toHaveLength(1);
    expect(children[0]!.record).toMatchObject({ id: "agent-0000000a", status: "finished" });
    expect(children[0]!.record).not.toHaveProperty("detached_rotation");
    expect(children[0]!.records).toEqual(good.records);
    expect(childrenFromJson("{not json")).toEqual({ children: [], skipped: 1 });
  });

  it("reads the folder beside a JSONL export, skipping what is not a child's folder", async () => {
    const dir = path.join(await tempDir(), "export.jsonl.agents");
    await writeChildrenFolder(dir, [child("agent-0000000a"), child("agent-0000000b")]);
    // A folder whose record names another id, one with no record, and a name that is no agent id.
    await mkdir(path.join(dir, "agent-0000000c"));
    await writeFile(path.join(dir, "agent-0000000c", "agent.json"), JSON.stringify(record("agent-0000000a")));
    await writeFile(path.join(dir, "agent-0000000c", "context.jsonl"), "");
    await mkdir(path.join(dir, "agent-0000000d"));
    await mkdir(path.join(dir, "notes"));
    const { children, skipped } = await readChildrenFolder(dir);
    expect(children.map((c) => c.record.id)).toEqual(["agent-0000000a", "agent-0000000b"]);
    expect(skipped).toBe(2);
    expect(await readChildrenFolder(path.join(dir, "missing"))).toEqual({ children: [], skipped: 0 });
  });
});
