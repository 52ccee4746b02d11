import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing"; // a real agent: OpenAIChatProvider, AnthropicProvider, ...
import { Context, Soul } from "@kosong/soul";

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

// A scripted model: it calls `add`, then answers.
const provider = new ScriptedChatProvider([
  'tool_call: {"id": "c1", "name": "add", "arguments": "{\\"a\\": 2, \\"b\\": 3}"}',
  "text: 2 + 3 = 5",
]);
const context = new Context(path.join(mkdtempSync(path.join(tmpdir(), "agent-")), "context.jsonl"));
await context.restore();
const toolset = new SimpleToolset([add]);
const soul = new Soul({ agent: { name: "calc", systemPrompt: "You do arithmetic.", toolset }, provider, context });

const turn = soul.run("What is 2 + 3?");
for await (const event of turn) {
  if (event.type === "ToolCall") console.log("call:", event.payload.function.name, JSON.stringify(event.payload.parsed_arguments));
  if (event.type === "ToolResult") console.log("result:", event.payload.return_value.output);
  if (event.type === "TextPart") console.log("model:", event.payload.text);
}
console.log("stop:", (await turn.result).stopReason); // no_tool_calls
console.log("messages:", context.history.length); // user, assistant + call, tool result, answer: 4

await context.revertTo(0); // back to before the turn; the old file stays as context_1.jsonl
console.log("after revert:", context.history.length); // 0
await context.close();
