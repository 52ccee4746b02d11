// A conversation in a JSONL file (kimi-cli's context.jsonl format), restored by a second storage.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { assistantMessage, userMessage } from "@kosong/core";
import { JsonlLinearStorage, LinearContext } from "@kosong/context";

const dir = await mkdtemp(path.join(os.tmpdir(), "kosong-example-"));
const file = path.join(dir, "context.jsonl");

// Write: restore first (a missing file restores to empty), append, close.
const storage = new JsonlLinearStorage(file, { durability: "batch" });
await storage.restore();
const context = new LinearContext(storage);
await context.appendMessage(userMessage("Hello"));
await context.appendMessage(assistantMessage("Hi! How can I help?"));
await context.markTokenCount(162);
await storage.close();

process.stdout.write(await readFile(file, "utf8"));
// {"role":"user","content":"Hello"}
// {"role":"assistant","content":"Hi! How can I help?"}
// {"role": "_usage", "token_count": 162}

// Read it back: damaged lines would be skipped and listed in the report.
const again = new JsonlLinearStorage(file);
const report = await again.restore();
console.log(`${again.messages.length} messages, ${again.tokenCount} tokens, ${report.skipped.length} lines skipped`);
// -> 2 messages, 162 tokens, 0 lines skipped
await again.close();
await rm(dir, { recursive: true });
