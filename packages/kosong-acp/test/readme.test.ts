/**
 * The README's agent is `examples/echo-agent.ts` word for word, and it
 * serves ACP as written: the ACP SDK's client spawns it, opens a session and
 * gets the echoed answer streamed back as updates.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";

const packageDir = new URL("../", import.meta.url);

describe("the README's echo agent", () => {
  it("is the example file, and an ACP client gets its streamed answer", async () => {
    const readme = await readFile(new URL("README.md", packageDir), "utf8");
    const example = await readFile(new URL("examples/echo-agent.ts", packageDir), "utf8");
    const start = readme.indexOf("```ts\n") + "```ts\n".length;
    expect(readme.slice(start, readme.indexOf("```", start))).toBe(example);

    const child = spawn(process.execPath, [new URL("examples/echo-agent.ts", packageDir).pathname], { stdio: ["pipe", "pipe", "inherit"] });
    const updates: SessionNotification[] = [];
    const app = client({ name: "readme-test" }).onNotification("session/update", ({ params }) => {
      updates.push(params);
    });
    const stopReason = await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      return (await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "think: hmm\ntext: Hello from ACP" }] })).stopReason;
    });
    child.stdin.end();
    expect(stopReason).toBe("end_turn");
    expect(updates.map((n) => n.update)).toEqual([
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello from ACP" } },
    ]);
  });
});
