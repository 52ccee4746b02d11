/**
 * A complete tool-using loop on @kosong/core, offline: a scripted model (the
 * echo DSL) asks for a calculator, the tool runs while the reply streams, and
 * the model answers with the tool's result. Swap the provider for
 * `new OpenAIChatProvider({ model: "gpt-4.1" })` (from `@kosong/core/openai`)
 * or `new AnthropicProvider({ model: "claude-sonnet-4-6" })` to run it for real.
 *
 * Run: pnpm example   (or, after `pnpm build`: node packages/kosong-core/examples/quickstart.ts)
 */
import {
  extractText,
  type Message,
  SimpleToolset,
  serializeMessage,
  step,
  toolResultToMessage,
  userMessage,
  defineTool,
} from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { z } from "zod";

const multiply = defineTool({
  name: "multiply",
  description: "Multiply two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a * b),
});

// Each script is one model response; a function script sees the history.
const model = new ScriptedChatProvider(
  [
    'text: Let me compute that.\ntool_call: {"id": "call_1", "name": "multiply", "arguments": "{\\"a\\": 17, \\"b\\": 23}"}',
    (history) => `text: 17 × 23 = ${extractText(history.at(-1)!)}.`,
  ],
  { chunkSize: 4 },
);

const history: Message[] = [userMessage("What is 17 times 23?")];
const toolset = new SimpleToolset([multiply]);

for (let turn = 1; ; turn++) {
  const result = await step(model, "You are a careful calculator.", toolset, history, {
    onMessagePart: (part) => {
      if (part.type === "text") process.stdout.write(part.text);
    },
  });
  process.stdout.write("\n");
  history.push(result.message);
  if (result.toolCalls.length === 0) break;
  for (const toolResult of await result.toolResults()) {
    console.log(`  [tool ${toolResult.tool_call_id}] -> ${String(toolResult.return_value.output)}`);
    history.push(toolResultToMessage(toolResult));
  }
}

console.log("\nThe conversation as kimi-cli context.jsonl lines:");
for (const message of history) console.log(serializeMessage(message));
