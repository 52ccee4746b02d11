// A conversation kept in memory: LinearContext over MemoryLinearStorage.
import { assistantMessage, userMessage } from "@kosong/core";
import { LinearContext, MemoryLinearStorage } from "@kosong/context";

const context = new LinearContext(new MemoryLinearStorage());
await context.appendMessage(userMessage("What is 2 + 2?"));
await context.appendMessage(assistantMessage("4"));
await context.markTokenCount(21);

console.log(`${context.history.length} messages, ${context.tokenCount} tokens`);
// -> 2 messages, 21 tokens
