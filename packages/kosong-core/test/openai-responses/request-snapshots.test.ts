/**
 * The 9 `openai_responses` request snapshots of upstream kosong: each input
 * goes through OpenAIResponsesProvider and the official SDK to the fake
 * server, and the captured `input` and `tools` must equal upstream's.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assistantMessage, parseMessage, type Tool } from "@kosong/core";
import { OpenAIResponsesProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

interface SnapshotInput {
  system: string;
  tools: Tool[];
  history: unknown[];
}

const snapshots = JSON.parse(readFileSync(fixture("kosong-request-snapshots/provider-request-snapshots.json"), "utf8")) as {
  _provider_setup: { openai_responses: { ctor: string; keys: string[] } };
  inputs: { openai_responses: Record<string, SnapshotInput> };
  expected: { openai_responses: Record<string, Record<string, unknown>> };
};
const setup = snapshots._provider_setup.openai_responses;
const cases = Object.keys(snapshots.inputs.openai_responses);

const server = useFakeProviderServer();

describe("OpenAIResponsesProvider request conversion (upstream snapshots)", () => {
  it("covers all 9 upstream cases", () => {
    expect(cases).toHaveLength(9);
    expect(setup.ctor).toContain("model='gpt-4.1'");
  });

  it.each(cases)("%s", async (name) => {
    const input = snapshots.inputs.openai_responses[name]!;
    const expected = snapshots.expected.openai_responses[name]!;
    // As upstream's setup: OpenAIResponses(model='gpt-4.1', api_key='test-key', stream=False).
    const provider = new OpenAIResponsesProvider({
      model: "gpt-4.1",
      apiKey: "test-key",
      baseURL: `${server.url}/v1`,
      stream: false,
    });
    server.enqueue({ message: assistantMessage("ok") });
    const history = input.history.map((m) => parseMessage(m));
    const stream = await provider.generate(input.system, input.tools, history);
    for await (const _ of stream) void _;

    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/v1/responses");
    for (const key of setup.keys) expect(request.body?.[key], key).toEqual(expected[key]);
    // The rest of the body, as upstream sends it.
    expect(request.body).toMatchObject({ model: "gpt-4.1", store: false, stream: false });
    expect(request.body).not.toHaveProperty("reasoning");
    expect(request.body).not.toHaveProperty("include");
  });
});
