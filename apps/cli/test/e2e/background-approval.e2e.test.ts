/**
 * A background child (`Agent` with `run_in_background`) that asks for
 * approval after its parent's turn has ended, through the built binary
 * against the fake provider server: print mode refuses it as it refuses
 * every approval (and says so on stderr); `--wire` sends it to the client as
 * a request and takes the answer. At the interactive prompt:
 * test/interactive/background-approval.test.ts.
 *
 * The child waits to start until the test says so (`gateSubagentStart`),
 * so its request comes after the parent's turn ended.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { enqueueBackgroundWrite, gatedProject } from "./background-write.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();


describe("a background agent's approval between turns", { timeout: 90_000 }, () => {
  it("print mode refuses it as it refuses every approval, and says so", async () => {
    const { home, cwd, env, go } = await gatedProject(await tempDir(), server);
    enqueueBackgroundWrite(server);
    // The parent's turn has ended once its second request is in: then the child may start.
    const poll = setInterval(() => {
      if (server.requests.length >= 2) {
        clearInterval(poll);
        void go();
      }
    }, 20);
    const result = await runKosong(["--model", "test-model", "-p", "write the notes in the background"], { cwd, home, env }).finally(() => clearInterval(poll));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/1 tool call refused without --yolo \(print mode cannot ask\): coder\/WriteFile \(background agent agent-[0-9a-f]{8}\)/);
    const sent = server.requests[3]!.body!.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(sent.at(-1))).toContain("refused in print mode");
    await expect(readFile(path.join(cwd, "notes.txt"), "utf8")).rejects.toThrow();
  });

  it("--wire sends it to the client as a request after the prompt's answer, and takes the client's answer", async () => {
    const { home, cwd, env, go } = await gatedProject(await tempDir(), server);
    enqueueBackgroundWrite(server);
    const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "--wire"], { cwd, env: cleanEnv(home, env), stdio: ["pipe", "pipe", "inherit"] });
    const messages: { id?: string | number; method?: string; result?: unknown; params?: { type?: string; payload?: Record<string, unknown> } }[] = [];
    let seen: (() => void) | null = null;
    createInterface({ input: child.stdout }).on("line", (line) => {
      messages.push(JSON.parse(line));
      seen?.();
    });
    const next = async <T,>(find: () => T | undefined): Promise<T> => {
      for (;;) {
        const found = find();
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => (seen = resolve));
      }
    };
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    try {
      send({ id: "1", method: "initialize", params: { protocol_version: "1.1" } });
      await next(() => messages.find((m) => m.id === "1"));
      send({ id: "2", method: "prompt", params: { user_input: "write the notes in the background" } });
      expect(await next(() => messages.find((m) => m.id === "2"))).toMatchObject({ result: { status: "finished" } });
      await go();
      const request = await next(() => messages.find((m) => m.method === "request" && m.params?.type === "ApprovalRequest"));
      expect(String(request.params!.payload!.sender)).toMatch(/^coder\/WriteFile \(background agent agent-[0-9a-f]{8}\)$/);
      send({ id: request.id, result: { request_id: request.id, response: "approve" } });
      await expect.poll(() => readFile(path.join(cwd, "notes.txt"), "utf8").catch(() => ""), { timeout: 20_000 }).toBe("from the background\n");
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.on("close", resolve));
    }
  });
});
