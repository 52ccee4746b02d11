/** The README's Context example runs as written and prints what its comments say. */
import { expect, it } from "vitest";
import { runReadmeBlock } from "./helpers/readme-block.js";

it("the README's Context example runs and prints what it says", async () => {
  const { code, logs } = await runReadmeBlock("## Context");
  // Each `console.log(...); // [what it is: ]a b c` prints the numbers a b c.
  const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (?:.*: )?(.+)$/gm)].map((m) => m[1]!.split(" ").map(Number));
  expect(promised).toHaveLength(3);
  expect(logs).toEqual(promised);
});
