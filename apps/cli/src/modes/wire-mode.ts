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
import type { Settings } from "../config/settings.js";
import type { Providers } from "../providers/create-provider.js";
import { count } from "../render/count.js";
import { noQuestioner, type Questioner } from "../questions/ask-user-question.js";
import { serveUntilSignal } from "./stop-on-signals.js";

/** What wire mode serves. */
export interface WireModeOptions {
  settings: Settings;
  providers: Providers;
  choice: SessionChoice;
}

/** Serves until stdin closes or a signal arrives; returns the exit code. */
export async function runWireMode(options: WireModeOptions): Promise<number> {
  const agent = await openAgentSession(options);
  // The wire server sends a background agent's approval request between turns to the client as a request.
  agent.subagents.answersBetweenTurns = true;
  try {
    const skipped = agent.restoreReport.skipped.length;
    if (skipped > 0) process.stderr.write(`kosong: ${count(skipped, "damaged line")} of ${agent.contextFile} skipped (the file is left as it is)\n`);
    return await serveUntilSignal((signal) =>
      serveWire(agent.soul, process.stdin, process.stdout, {
        server: { name: "kosong", version: packageJson.version },
        log: agent.session ? path.join(agent.session.dir, "wire.jsonl") : undefined,
        signal,
        // AskUserQuestion asks the client with kimi-cli's QuestionRequest when it declared supports_question.
        // set_plan_mode switches the session's plan mode (only reading tools until the client approves a plan).
        planMode: {
          set: (enabled) => {
            agent.planMode.on = enabled;
            return agent.planMode.on;
          },
        },
        onQuestions: (channel) => {
          const questioner: Questioner = { ask: (questions, signal, toolCallId) => channel.ask(toolCallId, questions, signal) };
          agent.questioner = () => (channel.supported ? questioner : noQuestioner("over --wire: the client did not declare capabilities.supports_question in initialize"));
        },
      }),
    );
  } finally {
    await agent.close();
  }
}
