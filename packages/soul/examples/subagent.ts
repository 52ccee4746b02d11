import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineTool, SimpleToolset } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing"; // a real agent: OpenAIChatProvider, AnthropicProvider, ...
import { Context, Soul } from "@kosong/soul";
import { runSubagent, subagentToolResult } from "@kosong/soul/subagent";

const dir = mkdtempSync(path.join(tmpdir(), "agents-"));
const researcher = { name: "researcher", systemPrompt: "You research one question.", toolset: new SimpleToolset([]) };
const childModel = new ScriptedChatProvider(["text: Paris\nusage: input_other=40 output=2"]);

// The child runs inside this tool: its own context file, model and prompt; events, usage and approvals go to the parent.
const research = defineTool({
  name: "Research",
  description: "Asks a researcher agent one question.",
  parameters: z.object({ question: z.string() }),
  execute: async ({ question }, context) =>
    subagentToolResult(await runSubagent(context, question, { agent: researcher, provider: childModel, context: new Context(path.join(dir, "researcher.jsonl")) })),
});

const provider = new ScriptedChatProvider([
  'tool_call: {"id": "c1", "name": "Research", "arguments": "{\\"question\\": \\"Capital of France?\\"}"}\nusage: input_other=100 output=10',
  "text: It is Paris.\nusage: input_other=120 output=5",
]);
const context = new Context(path.join(dir, "context.jsonl"));
await context.restore();
const soul = new Soul({ agent: { name: "lead", systemPrompt: "You delegate.", toolset: new SimpleToolset([research]) }, provider, context });

const turn = soul.run("What is the capital of France?");
for await (const event of turn) {
  if (event.type === "SubagentEvent" && event.payload.event.type === "TextPart") console.log(`${event.payload.subagent_type}:`, event.payload.event.payload.text);
  if (event.type === "TextPart") console.log("lead:", event.payload.text);
}
console.log("tokens:", (await turn.result).usage.input_other); // 100 + 40 + 120 = 260: the child's count in the turn
