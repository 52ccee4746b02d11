/**
 * The recorded 4-step reasoning tool loop (gpt-5.1-codex-max, calculator)
 * run as an agent runs it: `step()` with a real calculator tool through
 * OpenAIResponsesProvider and the official SDK, each tool result appended,
 * until the model answers in text.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { defineTool, SimpleToolset, step, toolResultToMessage, userMessage, type Message } from "@kosong/core";
import { OpenAIResponsesProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer();

const calculator = defineTool({
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  parameters: z.object({ a: z.number(), b: z.number(), op: z.enum(["add", "subtract", "multiply", "divide"]) }),
  execute: ({ a, b, op }) => String(op === "add" ? a + b : op === "subtract" ? a - b : op === "multiply" ? a * b : a / b),
});

it("runs the recorded loop with step(): reasoning kept across turns, calls answered by call_id", async () => {
  for (let turn = 1; turn <= 4; turn++) {
    server.enqueue({ fixture: fixture(`provider-streams/openai-responses/stream-reasoning-summary-tool-loop.turn${turn}.chunks.jsonl`) });
  }
  const provider = new OpenAIResponsesProvider({ model: "gpt-5.1-codex-max", apiKey: "test-key", baseURL: `${server.url}/v1` }).withThinking(
    "high",
  );
  const toolset = new SimpleToolset([calculator]);
  const history: Message[] = [userMessage("What is (12 + 7) * 3 * 10? Use the calculator for each step.")];
  const outputs: string[] = [];
  for (let turn = 1; turn <= 4; turn++) {
    const result = await step(provider, "", toolset, history);
    history.push(result.message);
    if (result.toolCalls.length === 0) break;
    for (const toolResult of await result.toolResults()) {
      expect(toolResult.return_value.is_error).toBe(false);
      outputs.push(String(toolResult.return_value.output));
      history.push(toolResultToMessage(toolResult));
    }
  }
  expect(outputs).toEqual(["19", "57", "570"]);
  const answer = history.at(-1)!;
  expect(answer).toMatchObject({ role: "assistant", content: [{ type: "text", text: "The final result is **570**." }] });
  // Turn 1's reasoning: one think part, signed with the encrypted content, sent back as one reasoning item.
  const think = history[1]!.content[0]!;
  expect(think).toMatchObject({ type: "think", think: expect.stringContaining("**Calculating step-by-step using calculator**") });
  expect(think.type === "think" && think.encrypted?.startsWith("gAAAAA")).toBe(true);
  const lastInput = server.requests.at(-1)!.body!.input as Array<Record<string, unknown>>;
  expect(lastInput.filter((i) => i.type === "reasoning")).toEqual([
    { type: "reasoning", summary: [{ type: "summary_text", text: (think as { think: string }).think }], encrypted_content: (think as { encrypted: string }).encrypted },
  ]);
  expect(lastInput.filter((i) => i.type === "function_call_output").map((i) => [i.call_id, i.output])).toEqual([
    ["call_AB6AaRZ1FYZB2RwS6A5vbdqn", [{ type: "input_text", text: "19" }]],
    ["call_Q6pW65MUgW9vF59BmItYGos3", [{ type: "input_text", text: "57" }]],
    ["call_Zl5vIMnD7dVAjgU6FkhmiCZh", [{ type: "input_text", text: "570" }]],
  ]);
});
