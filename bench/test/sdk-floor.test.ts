/**
 * The floor programs `codex-side-by-side` runs beside the agents: the
 * one-shot turn prints the answer and ends; its idle twin streams the same
 * turn, says `ready` and keeps waiting (the bench reads its RSS while it
 * waits, as it does an agent's at its prompt).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSdkFloor } from "../src/sdk-floor.ts";

const reply = { message: { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello there." }] } };

describe("the SDK floor programs", { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<typeof startFakeProviderServer>>;
  let dir: string;
  beforeAll(async () => {
    server = await startFakeProviderServer();
    dir = mkdtempSync(path.join(tmpdir(), "sdk-floor-"));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the floor program `kind`; resolves with its first output and a way to stop it (resolving with how it ended). */
  async function start(kind: "turn" | "idle") {
    server.reset();
    server.enqueue(reply);
    const bin = await buildSdkFloor(dir, kind);
    const child = spawn(process.execPath, [bin], { env: { PATH: process.env.PATH ?? "", HOME: dir, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }, stdio: ["ignore", "pipe", "inherit"] });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    const first = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    return { first, ended, stop: () => (child.kill("SIGTERM"), ended) };
  }

  it("the one-shot turn prints the answer and ends", async () => {
    const { first, ended } = await start("turn");
    expect(first).toContain("Hello there.");
    expect(await ended).toEqual({ code: 0, signal: null });
  });

  it("the idle twin streams the same turn, says ready and waits until stopped", async () => {
    const { first, stop } = await start("idle");
    expect(first).toBe("ready\n");
    expect(server.requests).toHaveLength(1);
    expect(await stop()).toEqual({ code: null, signal: "SIGTERM" });
  });
});
