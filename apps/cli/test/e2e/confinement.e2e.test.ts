/**
 * Workspace confinement, the Shell environment and Grep through the BUILT
 * binary in print mode (`--yolo`), against the fake provider server: what the
 * model reads back is what a user relies on.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();

const usage = { input_other: 50, output: 5, input_cache_read: 0, input_cache_creation: 0 };
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const callTool = (name: string, args: object): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id: "c1", function: { name, arguments: JSON.stringify(args) } }],
});

/** Runs one `kosong -p --yolo` turn in which the model calls `name(args)`; returns the tool result the model read and the session file. */
async function toolTurn(name: string, args: object, setup: (dirs: { home: string; cwd: string }) => Promise<void> = async () => {}, env: Record<string, string> = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(path.join(home, ".kosong"), { recursive: true });
  await mkdir(cwd);
  await setup({ home, cwd });
  fake.server.enqueue({ message: callTool(name, args), usage }, { message: assistant("Done."), usage });
  const result = await runKosong(["-p", "go", "--yolo"], { cwd, home, env: { OPENAI_API_KEY: "sk-test-0123456789", OPENAI_BASE_URL: `${fake.server.url}/v1`, ...env } });
  expect(result.code, result.stderr).toBe(0);
  const messages = fake.server.requests[1]!.body!.messages as { role: string; content?: unknown }[];
  const toolResult = JSON.stringify(messages.find((m) => m.role === "tool"));
  const [id] = await readdir(path.join(home, ".kosong/sessions"));
  const sessionFile = await readFile(path.join(home, ".kosong/sessions", id!, "context.jsonl"), "utf8");
  return { home, cwd, toolResult, sessionFile };
}

describe("kosong -p --yolo against hostile workspaces", { timeout: 90_000 }, () => {
  it("a Shell `env` shows neither the provider key nor other tokens to the model or the session file; the config's policy applies", async () => {
    const { toolResult, sessionFile } = await toolTurn(
      "Shell",
      { command: "env" },
      async ({ home }) => writeFile(path.join(home, ".kosong/config.toml"), '[shell_environment_policy]\nexclude = ["HIDE_*"]\nset = { FROM_CONFIG = "yes" }\n'),
      { GITHUB_TOKEN: "ghp_secret_value_42", HIDE_ME: "hidden", PLAIN_VAR: "visible" },
    );
    expect(toolResult).toContain("PLAIN_VAR=visible");
    expect(toolResult).toContain("FROM_CONFIG=yes");
    for (const leak of ["sk-test-0123456789", "OPENAI_API_KEY", "ghp_secret_value_42", "HIDE_ME"]) {
      expect(toolResult).not.toContain(leak);
      expect(sessionFile).not.toContain(leak);
    }
  });

  it("a Shell `env` shows no credential under other names (PATs, *AUTH*, webhooks, DSNs, URLs with a password, copies) to the model or the session file", async () => {
    const leaks = {
      GH_PAT: "ghp_pat_value_4242",
      GITHUB_PAT: "github_pat_value_4343",
      NPM_AUTH: "npm_auth_value_4444",
      DOCKER_AUTH_CONFIG: '{"auths":{"r.example":{"auth":"ZG9ja2VyX2F1dGg="}}}',
      SLACK_WEBHOOK_URL: "https://hooks.slack.example/services/T0/B0/webhook_4545",
      SENTRY_DSN: "https://sentry_dsn_4646@o0.ingest.example/1",
      DATABASE_URL: "postgres://app:db_pass_4747@db.example:5432/app",
      MIRROR_OF_PAT: "ghp_pat_value_4242",
    };
    const { toolResult, sessionFile } = await toolTurn("Shell", { command: "env" }, async () => undefined, {
      ...leaks,
      GIT_AUTHOR_NAME: "Ada Lovelace",
      PLAIN_URL: "https://example.com/x",
    });
    expect(toolResult).toContain("GIT_AUTHOR_NAME=Ada Lovelace");
    expect(toolResult).toContain("PLAIN_URL=https://example.com/x");
    for (const [name, value] of Object.entries(leaks)) {
      expect(toolResult, name).not.toContain(`${name}=`);
      expect(toolResult, name).not.toContain(value.slice(-8));
      expect(sessionFile, name).not.toContain(value.slice(-8));
    }
  });

  it("a WriteFile through a dangling link planted in the repository creates nothing outside", async () => {
    const { home, toolResult } = await toolTurn("WriteFile", { path: "notes.txt", content: "planted", mode: "append" }, async ({ home, cwd }) => {
      await mkdir(path.join(home, "outside"));
      await symlink("../outside/x.txt", path.join(cwd, "notes.txt"));
    });
    expect(toolResult).toContain("outside the working directory");
    expect(await readdir(path.join(home, "outside"))).toEqual([]);
  });

  it("a Grep with a catastrophic pattern ends and answers", async () => {
    const { toolResult } = await toolTurn("Grep", { pattern: "(a+)+$" }, async ({ cwd }) => writeFile(path.join(cwd, "evil.txt"), `${"a".repeat(40)}!\n`));
    expect(toolResult).toContain("(no match)");
  });
});
