/**
 * Compaction, D-Mail delivery and the host's rewrite each replace the
 * context in one step of the log (one truncateAndRotate carrying what
 * follows the revert or the clear), so a crash cannot leave the context
 * reverted or cleared without it. The only appends around them carry the
 * records held back from before (a token count), to the log that becomes
 * the rotation.
 */
import { MemoryContextLog } from "@kosong/context";
import { SendDMail, type Compaction } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { CountingLog } from "../context/helpers/counting-log.js";
import { call, collect, ofType, outline, script, testSoul } from "./helpers.js";

const summary: Compaction = {
  name: "summary",
  compact: async (history) => ({ messages: [{ role: "user", content: [{ type: "text", text: "summary" }] }, ...history.slice(-1)], usage: null }),
};

/** Appends that carry a message (records held back from before carry none). */
const messageAppends = (log: CountingLog) => log.appends.filter((roles) => roles.some((role) => !role.startsWith("_")));

describe("one log step each", () => {
  it("compaction: the system prompt, the checkpoint and the compacted messages go with the clear", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const { soul, context } = await testSoul({ log, compaction: summary, tools: [SendDMail], scripts: ["text: first", "text: second"] });
    await collect(soul.run("one"));
    await collect(soul.run("two"));
    log.appends.length = 0;
    const { events } = await collect(soul.compact());
    expect(log.truncations).toEqual([["_system_prompt", "_checkpoint", "user", "user", "assistant"]]);
    expect(messageAppends(log)).toEqual([]);
    // Two turns with D-Mail made checkpoints 0 to 3: the compaction's goes on from them.
    expect(outline(context)).toEqual(["user:<system>CHECKPOINT 4</system>", "user:summary", "assistant:second"]);
    expect(ofType(events, "CheckpointCreated").map((e) => e.payload)).toEqual([{ id: 4, label: null }]);
  });

  it("D-Mail: the fresh checkpoint, its message and the D-Mail go with the revert", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const dmail = call("d1", "SendDMail", { checkpoint_id: 0, message: "try B" });
    const { soul, context } = await testSoul({ log, tools: [SendDMail], scripts: [script("text: trying A", dmail), "text: trying B"] });
    const { events } = await collect(soul.run("go"));
    expect(log.truncations).toEqual([["_checkpoint", "user", "user"]]);
    expect(ofType(events, "Reverted").map((e) => e.payload)).toEqual([{ checkpoint_id: 0, reason: "dmail" }]);
    expect(ofType(events, "CheckpointCreated").map((e) => e.payload.id)).toEqual([0, 1, 0, 1]);
    expect(outline(context).slice(0, 2)).toEqual(["user:<system>CHECKPOINT 0</system>", expect.stringContaining("try B")]);
  });

  it("rewrite: the checkpoint made again and the edited messages go with the revert", async () => {
    const log = new CountingLog(new MemoryContextLog());
    const { soul, context } = await testSoul({ log, scripts: ["text: first", "text: second", "text: second, again"] });
    await collect(soul.run("one"));
    await collect(soul.run("two"));
    log.appends.length = 0;
    await collect(soul.rewrite(2, "two, edited"));
    expect(log.truncations).toEqual([["_checkpoint", "user"]]);
    expect(messageAppends(log)).toEqual([["_checkpoint", "assistant"]]);
    expect(outline(context)).toEqual(["user:one", "assistant:first", "user:two, edited", "assistant:second, again"]);
  });
});
