import { SmartCompaction } from "@kosong/soul/compaction";
import { describe, expect, it } from "vitest";
import { options, realTrajectoryCases } from "../src/benchmarks/real-trajectories.ts";
import { keptContentText, needsAfter, normalise } from "../src/real-trajectories/content.ts";

describe("smart's summary excerpts keep a newer, wider view over the older fragments it contains", () => {
  // django-12470 cut at 237 messages, compacted to 30 %: the next steps edit lines 711-717 of compiler.py. An older
  // view (721-735) and a newer one (711-716) are fragments of the view of 710-740; the agent's patch scripts name the
  // view's symbols too. Chosen piecewise, the fragments and the scripts kept all 7 lines but not together.
  it("keeps the old text of the next edit as one block (the 710-740 view), not split across fragments", async () => {
    const c = realTrajectoryCases(false).find((k) => k.trajectory.id.endsWith("django__django-12470") && k.cut === 237 && k.share === 0.3);
    expect(c).toBeDefined();
    const { anchors } = needsAfter(c!.trajectory.messages, c!.cut, 10);
    const anchor = anchors.find((a) => a.startsWith("# If we get to this point"));
    expect(anchor?.split("\n")).toHaveLength(7);
    const output = (await new SmartCompaction({ maxTokens: c!.maxTokens }).compact(c!.history, options(c!))).messages;
    expect(normalise(output.map(keptContentText).join("\n"))).toContain(anchor);
  });
});
