/** The README's file-restore example runs as written and prints what its comments say. */
import { expect, it } from "vitest";
import { runReadmeBlock } from "../context/helpers/readme-block.js";

it("the README's file-restore example restores the file and undoes the restore", async () => {
  const { logs } = await runReadmeBlock("### Files restored with the conversation");
  expect(logs).toEqual([[{ restored: ["notes.md"], skipped: [], conflicts: [] }, "draft 1\n"], ["draft 2\n"]]);
});
