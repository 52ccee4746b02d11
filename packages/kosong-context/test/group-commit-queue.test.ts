/**
 * GroupCommitQueue, the writer's queue every log here uses: appends made at
 * the same time are committed together, operations run alone and in call
 * order, `maxBatch` caps a commit, and a failed commit rejects its whole
 * batch and nothing else.
 */
import { GroupCommitQueue } from "@kosong/context";
import { describe, expect, it } from "vitest";

function recording(options: { maxBatch?: number; failOn?: string } = {}) {
  const log: string[] = [];
  const queue = new GroupCommitQueue<string, number>(async (batch) => {
    if (options.failOn !== undefined && batch.includes(options.failOn)) throw new Error(`disk full at ${options.failOn}`);
    log.push(`commit ${batch.join(",")}`);
    return batch.map((item) => item.length);
  }, options);
  return { log, queue };
}

describe("GroupCommitQueue", () => {
  it("commits appends made in the same tick together, each getting its own result", async () => {
    const { log, queue } = recording();
    expect(await Promise.all([queue.append("a"), queue.append("bb"), queue.append("ccc")])).toEqual([1, 2, 3]);
    expect(log).toEqual(["commit a,bb,ccc"]);
  });

  it("runs an operation alone, after what came before it and before what comes after", async () => {
    const { log, queue } = recording();
    const done = Promise.all([queue.append("a"), queue.run(async () => log.push("op")), queue.append("b"), queue.append("c")]);
    await done;
    expect(log).toEqual(["commit a", "op", "commit b,c"]);
  });

  it("commits at most maxBatch appends at once", async () => {
    const { log, queue } = recording({ maxBatch: 1 });
    await Promise.all([queue.append("a"), queue.append("b")]);
    expect(log).toEqual(["commit a", "commit b"]);
  });

  it("rejects every append of a failed commit, and goes on with the next", async () => {
    const { log, queue } = recording({ failOn: "bad" });
    const results = await Promise.allSettled([queue.append("ok"), queue.append("bad"), queue.run(async () => "after"), queue.append("later")]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled", "fulfilled"]);
    expect(log).toEqual(["commit later"]);
  });

  it("rejects an operation that throws, even synchronously, without stopping the queue", async () => {
    const { queue } = recording();
    const thrown = queue.run(() => {
      throw new Error("sync");
    });
    await expect(thrown).rejects.toThrow("sync");
    await expect(queue.append("x")).resolves.toBe(1);
  });
});
