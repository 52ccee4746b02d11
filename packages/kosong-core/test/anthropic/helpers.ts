import Anthropic from "@anthropic-ai/sdk";
import { AnthropicProvider, type AnthropicProviderOptions } from "@kosong/core/anthropic";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { fixture } from "@kosong/test-support";

/** A fresh fake provider server (close it with `server.close()`). */
export function startServer(): Promise<FakeProviderServer> {
  return startFakeProviderServer();
}

/** An AnthropicProvider talking to `server` through the official SDK. */
export function anthropicProvider(server: FakeProviderServer, options: Partial<AnthropicProviderOptions> = {}): AnthropicProvider {
  return new AnthropicProvider({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, ...options });
}

/** Absolute path of a fixture under `provider-streams/anthropic-messages/`. */
export function anthropicFixture(name: string): string {
  return fixture(`provider-streams/anthropic-messages/${name}`);
}

export { collectParts } from "../helpers/collect.js";

/** A client of a subclass of `Anthropic`: the provider then iterates the SDK's own parsed stream instead of its raw SSE events. */
export function subclassedClient(server: FakeProviderServer): Anthropic {
  class CustomAnthropic extends Anthropic {}
  return new CustomAnthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
}

/** The two stream paths of AnthropicProvider, as provider options. */
export const streamPaths: Array<[string, (server: FakeProviderServer) => Partial<AnthropicProviderOptions>]> = [
  ["SDK SSE parser (raw events)", () => ({})],
  ["SDK stream iteration (subclassed client)", (server) => ({ client: subclassedClient(server) })],
];
