import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startFakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureCliBuilt, kosongBin, makeProject } from "../src/cli-process.ts";
import { assertToolTurn, toolTurnAnswer, toolTurnResponses } from "../src/scripted-tool-turn.ts";

/** Runs `args` with node, stdin closed as the bench runs it (an open stdin would be read as more prompt); resolves with its stdout. */
function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve(stdout));
  });
}

describe("the side-by-side tool turn", () => {
  const work = mkdtempSync(path.join(tmpdir(), "kosong-tool-turn-"));
  let server: Awaited<ReturnType<typeof startFakeProviderServer>>;
  let project: string;

  beforeAll(async () => {
    ensureCliBuilt();
    server = await startFakeProviderServer();
    project = makeProject(work);
  });
  afterAll(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** kosong -p through the turn with `flags`; returns its stdout. */
  async function turn(flags: string[]): Promise<string> {
    server.reset();
    server.enqueue(...toolTurnResponses("kosong"));
    const env = { PATH: process.env.PATH ?? "", HOME: work, KOSONG_HOME: path.join(work, ".kosong"), OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: "1" };
    return run([kosongBin, "-p", "Run echo, then answer.", "--model", "bench-model", ...flags], project, env);
  }

  it("passes a turn where kosong ran the command and printed the streamed answer", async () => {
    // Off: the bench runs it in the sandbox, which this test does not need to prove it ran.
    const stdout = await turn(["--yolo", "--sandbox", "off"]);
    expect(stdout.trim()).toBe(toolTurnAnswer.trim());
    expect(() => assertToolTurn("kosong", server.requests, stdout)).not.toThrow();
  });

  it("fails a turn where the command never ran (print mode refuses Shell without a permission flag)", async () => {
    const stdout = await turn([]);
    expect(() => assertToolTurn("kosong", server.requests, stdout)).toThrow(/did not run the tool call/);
  });

  it("fails a turn whose printed answer is not the streamed one", async () => {
    const stdout = await turn(["--yolo", "--sandbox", "off"]);
    expect(() => assertToolTurn("kosong", server.requests, stdout.slice(0, 100))).toThrow(/printed another answer/);
  });
});
