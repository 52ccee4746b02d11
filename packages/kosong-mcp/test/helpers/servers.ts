/**
 * The MCP servers the tests run, all real child processes started from the
 * packages installed by the lockfile (no network): the reference servers
 * `@modelcontextprotocol/server-everything` (stdio, and streamable HTTP on a
 * free port) and `@modelcontextprotocol/server-filesystem`, and the hostile
 * server of `../fixtures`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { McpHttpServerConfig, McpStdioServerConfig, McpApproval } from "@kosong/mcp";

const require = createRequire(import.meta.url);

/** The entry script of an installed server package. */
function serverScript(pkg: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

/** server-everything over stdio. */
export function everythingStdio(): McpStdioServerConfig {
  return { command: process.execPath, args: [serverScript("@modelcontextprotocol/server-everything"), "stdio"] };
}

/** server-filesystem over stdio, allowed to use `dir` only. */
export function filesystemStdio(dir: string): McpStdioServerConfig {
  return { command: process.execPath, args: [serverScript("@modelcontextprotocol/server-filesystem"), dir] };
}

/** The hostile fixture server; `mute` never answers. */
export function hostileStdio(options: { mute?: boolean; cancelLog?: string } = {}): McpStdioServerConfig {
  const script = fileURLToPath(new URL("../fixtures/hostile-server.mjs", import.meta.url));
  return { command: process.execPath, args: options.mute ? [script, "mute"] : [script], ...(options.cancelLog ? { env: { CANCEL_LOG: options.cancelLog } } : {}) };
}

/** A running server-everything on streamable HTTP; `stop()` ends it. */
export interface HttpServer {
  config: McpHttpServerConfig;
  stop(): Promise<void>;
}

/** Starts server-everything in `streamableHttp` mode on a free port of 127.0.0.1 and waits until it listens. */
export async function startEverythingHttp(): Promise<HttpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript("@modelcontextprotocol/server-everything"), "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(`listening on port ${port}`)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything (HTTP) exited with ${code}: ${seen}`)));
  });
  return { config: { url: `http://127.0.0.1:${port}/mcp` }, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A new empty folder under the system's temp folder. */
export function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "kosong-mcp-"));
}

/** A tool call as a model makes it. */
export function call(id: string, name: string, args: Record<string, unknown> = {}) {
  return { type: "function" as const, id, function: { name, arguments: JSON.stringify(args) } };
}

/** The approval of a host that approves every MCP call (a call without one is refused: MCP calls fail closed). */
export const approveEveryCall: McpApproval = { request: async () => ({ approved: true }) };
