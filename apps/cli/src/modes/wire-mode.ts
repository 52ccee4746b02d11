/**
 * Wire mode (`kosong --wire`): serves the session over kimi-cli's wire
 * protocol on stdin/stdout (see `@kosong/soul/wire`), for
 * `@moonshot-ai/kimi-agent-sdk` and other wire clients. Everything sent is
 * recorded in the session's `wire.jsonl` for `replay`. Ends when stdin
 * closes (exit 0) or on SIGTERM/SIGINT/SIGHUP (the running turn aborted, the
 * session closed, exit 128+n). Diagnostics go to stderr only.
 */
import path from "node:path";
import { serveWire } from "@kosong/soul/wire";
import packageJson from "../../package.json" with { type: "json" };
import { openAgentSession, type SessionChoice } from "../agent/agent-session.js";
import { ExitCode } from "../cli-error.js";
import type { Settings } from "../config/settings.js";
import type { Providers } from "../providers/create-provider.js";
import { count } from "../render/count.js";

/** What wire mode serves. */
export interface WireModeOptions {
  settings: Settings;
  providers: Providers;
  choice: SessionChoice;
}

const signalCodes = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** Serves until stdin closes or a signal arrives; returns the exit code. */
export async function runWireMode(options: WireModeOptions): Promise<number> {
  const agent = await openAgentSession(options);
  const controller = new AbortController();
  let exitCode: number = ExitCode.ok;
  const handlers = Object.entries(signalCodes).map(([signal, code]) => {
    const handler = () => {
      exitCode = code;
      controller.abort();
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  try {
    const skipped = agent.restoreReport.skipped.length;
    if (skipped > 0) process.stderr.write(`kosong: ${count(skipped, "damaged line")} of ${agent.contextFile} skipped (the file is left as it is)\n`);
    await serveWire(agent.soul, process.stdin, process.stdout, {
      server: { name: "kosong", version: packageJson.version },
      log: agent.session ? path.join(agent.session.dir, "wire.jsonl") : undefined,
      signal: controller.signal,
    });
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    // After a signal stdin may still be open: stop reading it so the process can exit.
    process.stdin.destroy();
    await agent.close();
  }
  return exitCode;
}
