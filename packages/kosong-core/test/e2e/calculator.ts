/**
 * Shared parts of the end-to-end `step()` tests: a real tool, the scripted
 * two-round conversation the fake server plays, and the tool-loop driver.
 */
import { z } from "zod";
import {
  assistantMessage,
  type ChatProvider,
  defineTool,
  type Message,
  SimpleToolset,
  step,
  type StepResult,
  textPart,
  tokenUsage,
  toolCall,
  type ToolResult,
  toolResultToMessage,
  userMessage,
} from "@kosong/core";
import type { FakeMessageResponse } from "@kosong/core/testing";

export const SYSTEM_PROMPT = "You are a calculator. Use the add tool.";
export const QUESTION = "What are 2 + 3 and 10 + 20?";

/** The tool's executions, in start order (proof that the real implementation ran). */
export const calls: Array<{ a: number; b: number }> = [];

export const add = defineTool({
  name: "add",
  description: "Add two integers.",
  parameters: z.object({ a: z.number().int().describe("first addend"), b: z.number().int().describe("second addend") }),
  execute: ({ a, b }) => {
    calls.push({ a, b });
    return String(a + b);
  },
});

export function toolset(): SimpleToolset {
  calls.length = 0;
  return new SimpleToolset([add]);
}

/** Round one: some text and two parallel calls (ids in the provider's style), arguments streamed in small fragments. */
export function roundOne(ids: [string, string], text = "Let me add both."): FakeMessageResponse {
  return {
    message: assistantMessage([textPart(text)], [toolCall(ids[0], "add", { a: 2, b: 3 }), toolCall(ids[1], "add", { a: 10, b: 20 })]),
    usage: tokenUsage({ input_other: 40, output: 30 }),
    argumentsChunkSize: 5,
  };
}

/** Round two: the answer after the tool results. */
export const ANSWER = "2 + 3 = 5 and 10 + 20 = 30.";
export const roundTwo: FakeMessageResponse = {
  message: assistantMessage(ANSWER),
  usage: tokenUsage({ input_other: 25, output: 12, input_cache_read: 64 }),
};

export interface Conversation {
  first: StepResult;
  firstResults: ToolResult[];
  second: StepResult;
  history: Message[];
}

/** Runs the two steps as an agent loop does: step, append the message and the tool messages, step again. */
export async function converse(provider: ChatProvider): Promise<Conversation> {
  const tools = toolset();
  const history: Message[] = [userMessage(QUESTION)];
  const first = await step(provider, SYSTEM_PROMPT, tools, history);
  const firstResults = await first.toolResults();
  history.push(first.message, ...firstResults.map(toolResultToMessage));
  const second = await step(provider, SYSTEM_PROMPT, tools, history);
  history.push(second.message);
  return { first, firstResults, second, history };
}
