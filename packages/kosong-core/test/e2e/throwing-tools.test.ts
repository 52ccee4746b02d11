/**
 * A tool never throws into the loop, whatever it throws: `step()` through
 * OpenAIChatProvider and the official SDK against the fake provider server
 * (a message with one call per tool, rendered in the Chat Completions chunk
 * format), with tools that throw values no printing survives. Every call
 * gets an error result the model can read, and `toolResults()` settles.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  assistantMessage,
  defineTool,
  SimpleToolset,
  step,
  toolCall,
  toolResultToMessage,
  userMessage,
  type CallableTool,
  type Toolset,
  type ToolReturnValue,
} from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

const unprintable = {
  toJSON(): never {
    throw new Error("toJSON says no");
  },
  toString(): never {
    throw new Error("toString says no");
  },
};
const revoked = Proxy.revocable({}, {});
revoked.revoke();
const errorWithThrowingMessage = Object.defineProperty(new Error("x"), "message", {
  get(): never {
    throw new Error("message getter says no");
  },
});
const returnedTrap = new Proxy(
  {},
  {
    get(): never {
      throw new Error("the returned value's getters throw");
    },
  },
);

const throwers: Record<string, () => unknown> = {
  unprintable: () => {
    throw unprintable;
  },
  revoked_proxy: () => {
    throw revoked.proxy;
  },
  symbol: () => {
    throw Symbol("boom");
  },
  bigint: () => {
    throw 10n;
  },
  null_value: () => {
    throw null;
  },
  bad_error: () => {
    throw errorWithThrowingMessage;
  },
  async_unprintable: () => Promise.reject(unprintable),
  returns_trap: () => returnedTrap,
};

/** A plain CallableTool that breaks its own contract (it rejects) with an unprintable value. */
const rawRejecting: CallableTool = {
  name: "raw_rejecting",
  definition: { name: "raw_rejecting", description: "d", parameters: { type: "object", properties: {} } },
  call: (): Promise<ToolReturnValue> => Promise.reject(unprintable),
};

describe("tools that throw anything", () => {
  it("each becomes an error result the model reads, and toolResults() settles", async () => {
    const names = [...Object.keys(throwers), rawRejecting.name];
    const tools = Object.entries(throwers).map(([name, run]) =>
      defineTool({ name, description: `throws (${name})`, parameters: z.object({}), execute: run as () => ToolReturnValue }),
    );
    server.enqueue({ message: assistantMessage("Trying them all.", names.map((name, i) => toolCall(`call_${i}`, name, {}))) });
    const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });

    const result = await step(provider, "", new SimpleToolset([...tools, rawRejecting]), [userMessage("go")]);
    const results = await result.toolResults();

    expect(results.map((r) => r.tool_call_id)).toEqual(names.map((_, i) => `call_${i}`));
    for (const { return_value } of results) {
      expect(return_value.is_error).toBe(true);
      expect(return_value.message).toMatch(/^Error running tool: ./);
    }
    const byName = Object.fromEntries(names.map((name, i) => [name, results[i]!.return_value.message]));
    expect(byName.symbol).toContain("Symbol(boom)");
    expect(byName.bigint).toContain("10");
    expect(byName.unprintable).toContain("unprintable");
    expect(byName.returns_trap).toContain("getters throw");
    // Every result can be written back to the model.
    for (const r of results) expect(toolResultToMessage(r).role).toBe("tool");
  });

  it("a toolset whose handle rejects or throws such values still settles with error results", async () => {
    const broken: Toolset = {
      tools: [],
      handle: (call) => {
        if (call.function.name === "sync") throw unprintable;
        return Promise.reject(revoked.proxy);
      },
    };
    server.enqueue({ message: assistantMessage("", [toolCall("c_sync", "sync", {}), toolCall("c_async", "async", {})]) });
    const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
    const result = await step(provider, "", broken, [userMessage("go")]);
    const results = await result.toolResults();
    expect(results.map((r) => [r.tool_call_id, r.return_value.is_error])).toEqual([
      ["c_sync", true],
      ["c_async", true],
    ]);
  });
});
