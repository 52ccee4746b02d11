/** The checkpoints of a saved session: the ids in its conversation file, and those `checkpoint-times.jsonl` gives a time (with the messages before each). */
import { readFile } from "node:fs/promises";
import path from "node:path";

/** Reads `dir` (a session folder); a missing times file gives no times. */
export async function sessionCheckpointIds(dir: string): Promise<{ checkpoints: number[]; timed: number[]; messages: number[] }> {
  const lines = (text: string) => text.split("\n").filter((line) => line !== "");
  const checkpoints = lines(await readFile(path.join(dir, "context.jsonl"), "utf8")).filter((line) => line.includes('"_checkpoint"'));
  const timed = lines(await readFile(path.join(dir, "checkpoint-times.jsonl"), "utf8").catch(() => "")).map((line) => JSON.parse(line) as { id: number; messages: number });
  return { checkpoints: checkpoints.map((line) => (JSON.parse(line) as { id: number }).id), timed: timed.map((t) => t.id), messages: timed.map((t) => t.messages) };
}
