/**
 * Recall on PostgreSQL: after a compaction of a soul on a PostgresContextLog,
 * the model's `Recall` brings back the dropped range by its pointer and a
 * file's last view by its path, read from the rotation the store kept, and
 * after the session is reopened too.
 */
import { defineTool, extractText, SimpleToolset, type Message } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { Context, Soul, type Compaction, type SoulStream } from "@kosong/soul";
import { isPointerNotice, Recall } from "@kosong/soul/recall";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sessionId, testStore } from "./helpers/store.js";

const store = await testStore();

const SOURCE = Array.from({ length: 200 }, (_, i) => (i === 120 ? "const DATABASE_PORT = 54329;" : `// line ${i} of the config module`)).join("\n");
const readFile = defineTool({
  name: "ReadFile",
  description: "Reads a file.",
  parameters: z.object({ path: z.string() }),
  async execute({ path }) {
    if (path !== "src/config.ts") throw new Error(`no such file: ${path}`);
    return SOURCE;
  },
});
const keepLastTwo: Compaction = { name: "keep-last", compact: async (history) => ({ messages: history.slice(-2), usage: null }) };

const call = (id: string, name: string, args: Record<string, unknown>) => `tool_call: ${JSON.stringify({ id, name, arguments: JSON.stringify(args) })}`;
const noWait = { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0, maxRetryAfterMs: 0 };
const pointerIn = (history: readonly Message[]) => /\br\d+:\d+(?:-\d+)?\b/.exec(extractText(history.findLast(isPointerNotice)!))![0];
const resultOf = (context: Context, id: string) => extractText(context.history.find((m) => m.tool_call_id === id)!);

async function drain<R>(stream: SoulStream<R>): Promise<R> {
  for await (const _ of stream) void _;
  return stream.result;
}

function soulOn(context: Context, scripts: ConstructorParameters<typeof ScriptedChatProvider>[0]) {
  return new Soul({
    agent: { name: "pg", systemPrompt: "You read files.", toolset: new SimpleToolset([readFile, Recall]) },
    provider: new ScriptedChatProvider(scripts),
    context,
    compaction: keepLastTwo,
    config: { retry: noWait },
  });
}

describe("Recall on PostgresContextLog", () => {
  it("brings back a dropped range and a file's last view after a compaction, and after the session is reopened", async () => {
    const id = sessionId();
    const context = new Context(await store.openLog(id));
    await context.restore();
    const soul = soulOn(context, [
      call("c1", "ReadFile", { path: "src/config.ts" }),
      "text: read",
      "text: noted",
      (history) => call("r1", "Recall", { pointer: pointerIn(history) }),
      call("r2", "Recall", { path: "./src/config.ts", query: "DATABASE_PORT" }),
      "text: 54329",
    ]);
    await drain(soul.run("read the config"));
    await drain(soul.run("keep the port in mind"));
    await drain(soul.compact());
    expect(isPointerNotice(context.history.at(-1)!)).toBe(true);
    expect(context.history.some((m) => extractText(m).includes("DATABASE_PORT"))).toBe(false);

    await drain(soul.run("which port?"));
    expect(resultOf(context, "r1")).toContain("const DATABASE_PORT = 54329;");
    expect(resultOf(context, "r1")).toContain("read the config");
    expect(resultOf(context, "r2")).toContain("const DATABASE_PORT = 54329;");
    await context.close();

    const reopened = new Context(await store.openLog(id));
    await reopened.restore();
    const again = soulOn(reopened, [(history) => call("r3", "Recall", { pointer: pointerIn(history) }), "text: still there"]);
    await drain(again.run("once more"));
    expect(resultOf(reopened, "r3")).toContain("const DATABASE_PORT = 54329;");
    await reopened.close();
  });
});
