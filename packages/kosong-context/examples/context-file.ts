// The record-level API (what @kosong/soul builds kimi-cli's Context on):
// checkpoints, a revert by truncate-with-rotation, and undoing it.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { userMessage } from "@kosong/core";
import { JsonlContextFile } from "@kosong/context";
import { checkpointRecord, messageRecord, systemPromptRecord, usageRecord } from "@kosong/context/records";

const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-example-"));
const file = await JsonlContextFile.open(path.join(dir, "context.jsonl"));

await file.append([systemPromptRecord("You are a helpful agent.")]);
for (let id = 0; id < 3; id += 1) {
  await file.append([checkpointRecord(id)]);
  await file.append([messageRecord(userMessage(`question ${id}`)), usageRecord(100 * (id + 1))]);
}

// Revert to checkpoint 1: keep everything before its record; the old file becomes context_1.jsonl.
const state = await file.read();
const mark = state.checkpoints.find((c) => c.id === 1)!;
const rotation = await file.truncateAndRotate(mark.position);
const reverted = await file.read();
console.log(`reverted: ${reverted.messages.length} message, ${reverted.tokenCount} tokens, next checkpoint ${reverted.nextCheckpointId}`);
// -> reverted: 1 message, 100 tokens, next checkpoint 1
console.log(`kept the old file as ${path.basename(rotation.location)}`);
// -> kept the old file as context_1.jsonl

// Undo the revert: rotation 1 becomes current again (the reverted file is kept as context_2.jsonl).
const undo = await file.restoreRotation(rotation.n);
const restored = await file.read();
console.log(`restored: ${restored.messages.length} messages, reverted file kept as ${path.basename(undo.savedAs!.location)}`);
// -> restored: 3 messages, reverted file kept as context_2.jsonl

await file.close();
await rm(dir, { recursive: true });
