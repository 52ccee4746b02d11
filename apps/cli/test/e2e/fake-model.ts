/**
 * The fake OpenAI-compatible server the binary's e2e tests point kosong at
 * (started once per file, reset before each test), and builders of the
 * assistant messages it answers with.
 */
import type { Message } from "@kosong/core";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { ensureBuilt } from "./kosong-binary.js";

/** Builds the CLI when needed and runs the fake server for the file's tests; read `.server` inside tests. */
export function useFakeModel(): { readonly server: FakeProviderServer } {
  const holder = {} as { server: FakeProviderServer };
  beforeAll(async () => {
    ensureBuilt();
    holder.server = await startFakeProviderServer();
  }, 300_000);
  afterAll(() => holder.server.close());
  beforeEach(() => holder.server.reset());
  return holder;
}

/** Token usage the fake server reports. */
export const usage = { input_other: 50, output: 5, input_cache_read: 0, input_cache_creation: 0 };

/** An assistant message saying `text`. */
export const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

/** An assistant message calling tool `name` with `args`. */
export const callTool = (id: string, name: string, args: object): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }],
});

/** A gate for a held stream (`{ holdAfter, release: opened }`): the rest of the stream follows once `open()` is called. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  return { opened: new Promise<void>((resolve) => (open = resolve)), open };
}

/** An assistant message calling each of `list` ([id, tool, arguments]) in one step. */
export const callTools = (...list: [string, string, object][]): Message => ({
  role: "assistant",
  content: [],
  tool_calls: list.map(([id, name, args]) => ({ type: "function", id, function: { name, arguments: JSON.stringify(args) } })),
});

type SentMessage = { role: string; content?: unknown; tool_call_id?: string };

/** The content (as JSON text; "" when absent) of the result for tool call `id` in the server's `n`th request. */
export function sentToolResult(server: FakeProviderServer, n: number, id: string): string {
  return JSON.stringify((server.requests[n]!.body!.messages as SentMessage[]).find((m) => m.tool_call_id === id)?.content ?? "");
}

/** The names of the tools offered in the server's `n`th request. */
export function offeredToolNames(server: FakeProviderServer, n: number): string[] {
  return (server.requests[n]!.body!.tools as { function: { name: string } }[]).map((t) => t.function.name);
}
