/**
 * Time limits through the built binary: a model response that does not
 * start within --first-byte-timeout is retried (the retry is visible in
 * stream-json), one whose stream goes silent past --idle-timeout too, and a
 * Shell call running past --shell-timeout is stopped, the model reads the
 * error and the turn goes on.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fakeServer = useFakeProviderServer();

const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("kosong time limits, the built binary", { timeout: 60_000 }, () => {
  it("retries a response that does not start within --first-byte-timeout, and one whose stream stalls past KOSONG_IDLE_TIMEOUT", async () => {
    const home = await tempDir();
    const server = fakeServer.server;
    const slow: Message = { role: "assistant", content: ["never ", "finished"].map((text) => ({ type: "text" as const, text })) };
    server.enqueue({ message: assistant("too late"), delayMs: 10_000 }, { message: slow, chunkDelayMs: 10_000 }, { message: assistant("Here in time.") });
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_IDLE_TIMEOUT: "0.3" };
    const result = await runKosong(["-p", "hi", "--first-byte-timeout", "0.3", "--output-format", "stream-json"], { cwd: home, home, env });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const retries = events.filter((e) => e.type === "StepRetry").map((e) => e.payload as { error_type: string; error: string });
    expect(retries.map((r) => r.error_type)).toEqual(["APITimeoutError", "APITimeoutError"]);
    expect(retries[0]!.error).toMatch(/no response within 0\.3 s/);
    expect(retries[1]!.error).toMatch(/stalled/);
    expect(events.filter((e) => e.type === "TextPart").map((e) => (e.payload as { text: string }).text).join("")).toContain("Here in time.");
  });

  it("stops a Shell call running past --shell-timeout; the model reads why and the turn goes on", async () => {
    const home = await tempDir();
    const scripts = path.join(home, "scripts.json");
    const shell = { id: "call_1", name: "Shell", arguments: JSON.stringify({ command: "sleep 30" }) };
    await writeFile(scripts, JSON.stringify([`tool_call: ${JSON.stringify(shell)}`, "text: The command took too long."]));
    const result = await runKosong(["-p", "run it", "--provider", "scripted", "--script", scripts, "--yolo", "--shell-timeout", "0.5", "--output-format", "stream-json"], {
      cwd: home,
      home,
    });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const toolResult = events.find((e) => e.type === "ToolResult")!.payload as { return_value: { is_error: boolean; message: string } };
    expect(toolResult.return_value.is_error).toBe(true);
    expect(toolResult.return_value.message).toMatch(/`Shell` ran longer than its time limit of 0\.5 s/);
    expect(events.filter((e) => e.type === "TextPart").map((e) => (e.payload as { text: string }).text).join("")).toContain("The command took too long.");
  });

  it("refuses a timeout that is not a number of seconds", async () => {
    const home = await tempDir();
    const result = await runKosong(["-p", "hi", "--idle-timeout", "soon"], { cwd: home, home, env: { OPENAI_API_KEY: "sk-test" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--idle-timeout: expected a number of seconds/);
  });
});
