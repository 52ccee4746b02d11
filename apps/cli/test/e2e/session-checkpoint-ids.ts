/** The checkpoint ids of a saved session: those of its conversation file, and those `checkpoint-times.jsonl` gives a time. */
import { readFile } from "node:fs/promises";
import path from "node:path";

/** Reads `dir` (a session folder); a missing times file gives no times. */
export async function sessionCheckpointIds(dir: string): Promise<{ checkpoints: number[]; timed: number[] }> {
  const lines = (text: string) => text.split("\n").filter((line) => line !== "");
  const idOf = (line: string) => (JSON.parse(line) as { id: number }).id;
  const checkpoints = lines(await readFile(path.join(dir, "context.jsonl"), "utf8")).filter((line) => line.includes('"_checkpoint"'));
  const timed = lines(await readFile(path.join(dir, "checkpoint-times.jsonl"), "utf8").catch(() => ""));
  return { checkpoints: checkpoints.map(idOf), timed: timed.map(idOf) };
}
