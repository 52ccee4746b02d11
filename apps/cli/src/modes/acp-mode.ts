/**
 * ACP mode (`kosong acp`): serves kosong as an ACP agent on stdin/stdout
 * (see `@kosong/acp`), for Zed and other ACP editors. Each ACP session is a
 * saved kosong session (`session/load` takes its id); the editor's file
 * system and terminal are used for the tools when it offers them. Ends when
 * stdin closes (exit 0) or on SIGTERM/SIGINT/SIGHUP (turns aborted, sessions
 * closed, exit 128+n). Diagnostics go to stderr only.
 */
import { serveAcp, stdioStream, type AcpSession, type AcpSessionRequest } from "@kosong/acp";
import packageJson from "../../package.json" with { type: "json" };
import { openAgentSession, type SessionChoice } from "../agent/agent-session.js";
import type { Settings } from "../config/settings.js";
import type { Providers } from "../providers/create-provider.js";
import { serveUntilSignal } from "./stop-on-signals.js";

/** What ACP mode serves. */
export interface AcpModeOptions {
  settings: Settings;
  providers: Providers;
}

/** Serves until stdin closes or a signal arrives; returns the exit code. */
export function runAcpMode(options: AcpModeOptions): Promise<number> {
  const open = async (choice: SessionChoice, request: AcpSessionRequest): Promise<AcpSession> => {
    const agent = await openAgentSession({ ...options, choice, cwd: request.cwd, host: request.client });
    return { id: agent.displayId, soul: agent.soul, close: agent.close };
  };
  const host = {
    info: { name: "kosong", title: "kosong", version: packageJson.version },
    newSession: (request: AcpSessionRequest) => open({ kind: "new" }, request),
    loadSession: (id: string, request: AcpSessionRequest) => open({ kind: "resume", id }, request),
  };
  return serveUntilSignal((signal) => serveAcp(host, stdioStream(), { signal }));
}
