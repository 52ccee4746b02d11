/**
 * The recorded Chat Completions tool loop (gpt-4o-mini, `get_capital`) run
 * as an agent runs it: `step()` with a real tool through OpenAIChatProvider
 * and the official SDK, the tool result appended, then the answer. The
 * second request must carry the conversation as the real one did. Also: the
 * recorded parallel calls through `generate()`.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  extractText,
  generate,
  SimpleToolset,
  step,
  tokenUsage,
  toolCall,
  toolResultToMessage,
  userMessage,
  type Message,
  type StreamedMessagePart,
} from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const dir = "provider-streams/openai-chat-completions";

const server = useFakeProviderServer();

const capitals: Record<string, string> = { UK: "London", France: "Paris" };
const asked: string[] = [];
const getCapital = defineTool({
  name: "get_capital",
  description: "",
  parameters: z.object({ country: z.string() }),
  execute: ({ country }) => {
    asked.push(country);
    return capitals[country] ?? "unknown";
  },
});

it("runs the recorded two-turn loop with step(); the second request matches the recorded one", async () => {
  server.enqueue({ fixture: fixture(`${dir}/stream-tool-call.sse`) }, { fixture: fixture(`${dir}/stream-text-after-tool-result.sse`) });
  const provider = new OpenAIChatProvider({ model: "gpt-4o-mini", apiKey: "test-key", baseURL: `${server.url}/v1` });
  const toolset = new SimpleToolset([getCapital]);
  const question = "What is the capital of the UK? Use the tool, then answer.";
  const history: Message[] = [userMessage(question)];
  const streamed: StreamedMessagePart[] = [];

  const first = await step(provider, "", toolset, history, { onMessagePart: (part) => void streamed.push(part) });
  expect(first.id).toBe("chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl");
  expect(first.finishReason).toBe("tool_calls");
  expect(first.usage).toEqual(tokenUsage({ input_other: 53, output: 15 }));
  expect(first.message.tool_calls).toEqual([toolCall("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", '{"country":"UK"}')]);
  expect(streamed).toHaveLength(6); // the call, then five argument fragments
  const results = await first.toolResults();
  expect(asked).toEqual(["UK"]);
  expect(results.map((r) => [r.tool_call_id, r.return_value.is_error, r.return_value.output])).toEqual([
    ["call_ZR5UUuTt3pf61kjwAJIYdVMj", false, "London"],
  ]);
  history.push(first.message, ...results.map(toolResultToMessage));

  const second = await step(provider, "", toolset, history);
  expect(extractText(second.message)).toBe("The capital of the UK is London.");
  expect(second.message.tool_calls ?? []).toEqual([]);
  expect(second.usage).toEqual(tokenUsage({ input_other: 78, output: 9 }));
  expect(second.finishReason).toBe("stop");

  // The recorded turn-2 request (what a real client sent, and OpenAI answered):
  // the same messages, except that our tool-calling assistant message omits
  // `content` where that client sent `content: null` (both mean "no content").
  const sources = JSON.parse(readFileSync(fixture(`${dir}/_sources.json`), "utf8")) as Record<
    string,
    { http: { request: { body: { messages: Array<Record<string, unknown>> } } } }
  >;
  const recorded = sources["stream-text-after-tool-result.sse"]!.http.request.body.messages.map((m) => {
    const { content, ...rest } = m;
    return content === null ? rest : m;
  });
  expect(server.requests[1]!.body!.messages).toEqual(recorded);
});

it("merges the recorded parallel calls with generate()", async () => {
  server.enqueue({ fixture: fixture(`${dir}/stream-parallel-tool-calls.sse`) });
  const provider = new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1` });
  const seen: string[] = [];
  const result = await generate(provider, "", [], [userMessage("Tell me")], { onToolCall: (call) => void seen.push(call.id) });
  expect(result.message.tool_calls).toEqual([
    toolCall("call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", "{}"),
    toolCall("call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", "{}"),
  ]);
  expect(seen).toEqual(["call_q2UyBRP7eXNTzAoR8lEhjc9Z", "call_b51ijcpFkDiTQG1bQzsrmtW5"]);
  expect(result.usage).toEqual(tokenUsage({ input_other: 364, output: 40 }));
  expect(result.finishReason).toBe("tool_calls");
});
