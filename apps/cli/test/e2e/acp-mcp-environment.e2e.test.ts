/**
 * The environment of an MCP server an ACP editor passes in `session/new`,
 * through the built `kosong acp` driven by the ACP SDK's client: as for the
 * servers of the config file, the server gets the launcher variables of
 * kosong's environment (proxy, CA, locale, npm config), the editor's `env`
 * on top with `${VAR}` and `${VAR:-default}` expanded, and none of the
 * user's credentials. The server is the reference "everything" server,
 * whose `get-env` tool reports its environment.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type McpServer } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { callTool, say, useFakeModel, usage } from "./fake-model.js";

const tempDir = useTempDirs();
const fake = useFakeModel();
const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

/** What a package launcher needs of the user's shell. */
const launcherEnvironment = {
  HTTPS_PROXY: "http://127.0.0.1:9",
  no_proxy: "localhost,127.0.0.1",
  NODE_EXTRA_CA_CERTS: "/etc/ssl/company-ca.pem",
  LANG: "de_DE.UTF-8",
  LC_ALL: "de_DE.UTF-8",
  npm_config_registry: "http://127.0.0.1:9/npm/",
};
/** What must stay with kosong: credentials, and a plain variable only the editor's `${TEAM}` uses. */
const otherEnvironment = { npm_config__authToken: "npm-auth-acp-0003", SECRET_TOKEN: "tok-acp-0002", TEAM: "platform" };

describe("kosong acp: the environment of the editor's MCP servers", { timeout: 60_000 }, () => {
  it("gets the launcher variables and the editor's env with ${VAR} expanded, without credentials", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "acp"], {
      cwd,
      env: cleanEnv(home, { OPENAI_API_KEY: "sk-test-acp-0001", OPENAI_BASE_URL: `${fake.server.url}/v1`, ...launcherEnvironment, ...otherEnvironment }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const app = client({ name: "test-editor" }).onRequest("session/request_permission", () => ({ outcome: { outcome: "selected" as const, optionId: "approve" } }));
    try {
      await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const server: McpServer = {
          name: "env",
          command: process.execPath,
          args: [everything, "stdio"],
          env: [
            { name: "TEAM_LABEL", value: "team ${TEAM}" },
            { name: "REGION", value: "${KOSONG_TEST_REGION:-eu-west}" },
          ],
        };
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [server] });
        fake.server.enqueue({ message: callTool("call_env", "mcp__env__get-env", {}), usage }, { message: say("Seen."), usage });
        expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "print the env" }] })).toEqual({ stopReason: "end_turn" });
      });
    } finally {
      child.stdin.end();
    }
    expect(await exited, stderr).toBe(0);
    const toolMessage = (fake.server.requests[1]!.body!.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === "tool");
    const content = toolMessage?.content;
    const text = typeof content === "string" ? content : (content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
    const reported = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as Record<string, string>;
    expect(reported).toMatchObject({ ...launcherEnvironment, TEAM_LABEL: "team platform", REGION: "eu-west" });
    for (const name of ["OPENAI_API_KEY", ...Object.keys(otherEnvironment)]) expect(reported[name], name).toBeUndefined();
    expect(JSON.stringify(reported)).not.toMatch(/sk-test-acp|tok-acp|npm-auth-acp/);
  });
});
