import { describe, expect, it } from "vitest";
import { diffLineLimit, lineDiff } from "../src/tools/line-diff.js";

describe("lineDiff", () => {
  it("gives hunks with three lines of context, removed lines before added ones", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].join("\n");
    const after = ["a", "b", "c", "d", "E", "f", "g", "h", "i", "j", "k"].join("\n");
    expect(lineDiff(before, after)).toBe(["@@ -2,9 +2,10 @@", " b", " c", " d", "-e", "+E", " f", " g", " h", " i", " j", "+k"].join("\n"));
  });

  it("splits changes far apart into hunks, and shows a new file as added lines", () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const after = before.map((line, i) => (i === 2 || i === 25 ? `${line}!` : line));
    const diff = lineDiff(before.join("\n"), after.join("\n"));
    expect(diff.split("\n").filter((line) => line.startsWith("@@"))).toEqual(["@@ -1,6 +1,6 @@", "@@ -23,7 +23,7 @@"]);
    expect(lineDiff("", "x\ny\n")).toBe("@@ -0,0 +1,2 @@\n+x\n+y");
    expect(lineDiff("same\n", "same\n")).toBe("");
  });

  it("cuts a long diff with a count of the lines left out", () => {
    const diff = lineDiff("", Array.from({ length: 1000 }, (_, i) => `${i}`).join("\n")).split("\n");
    expect(diff).toHaveLength(diffLineLimit + 1);
    expect(diff.at(-1)).toBe(`… ${1001 - diffLineLimit} more lines of diff`);
  });
});
