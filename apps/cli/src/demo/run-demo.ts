/**
 * `kosong demo`: an offline tour on the real parts. The interactive mode
 * runs on the real Soul, a real JSONL session file and the real tools in a
 * temporary workspace; only the model is scripted (DemoChatProvider) and the
 * user is a typist. It shows a multi-step tool turn with streaming, an
 * approval, the checkpoints, a D-Mail that reverts (the file the agent wrote
 * too) and continues, a rewrite
 * of an earlier message, a compaction with the context bar dropping, and the
 * session saved and resumed.
 */
import path from "node:path";
import { extractText, type Message } from "@kosong/core";
import { defaultMaxFileBytes } from "@kosong/workspace";
import { type AgentSession, openAgentSession, type SessionChoice } from "../agent/agent-session.js";
import { ExitCode } from "../cli-error.js";
import { DEFAULT_SHELL_TIMEOUT_MS, type Settings } from "../config/settings.js";
import { InteractiveSession } from "../modes/interactive/interactive-session.js";
import { printBanner, runLoop } from "../modes/interactive/run-interactive.js";
import { styleFor } from "../render/terminal-style.js";
import { noConfiguredAnswers } from "../questions/configured-answers.js";
import { defaultEnvironmentPolicy } from "../tools/child-environment.js";
import { createDemoWorkspace } from "./demo-workspace.js";
import { DemoChatProvider, demoLog, demoPrompts } from "./demo-model.js";
import { ScriptedTypist, type TypedLine } from "./scripted-typist.js";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** No pauses (for scripts and tests). */
  fast: boolean;
  out?: NodeJS.WriteStream;
}

/** The demo's context window: small, so the bar moves. */
export const demoContextSize = 6_000;

/** Runs the demo; returns the exit code. */
export async function runDemo(options: DemoOptions): Promise<number> {
  const out = options.out ?? process.stdout;
  const style = styleFor(out);
  const pace = options.fast ? { perCharMs: 0, pauseMs: 0, streamMs: 0 } : { perCharMs: 18, pauseMs: 700, streamMs: 10 };
  const workspace = await createDemoWorkspace();
  const settings = demoSettings(path.join(workspace, ".kosong"));
  const providers = { main: new DemoChatProvider(pace.streamMs), compact: null, maxContextSize: demoContextSize };
  out.write(`${style.bold("kosong demo")}: a scripted model and a scripted user, on the real agent loop, session file and tools.\n`);
  out.write(style.dim(`Workspace: ${workspace} (the session is saved in .kosong/ there)\n`));

  let sessionId = "";
  // The first session starts on preserve-important and is taught `/strategy simple`; the resumed one keeps what it was taught.
  const open = async (choice: SessionChoice, lines: (agent: AgentSession) => TypedLine[]) => {
    const compaction = choice.kind === "new" ? "preserve-important" : null;
    const agent = await openAgentSession({ settings: { ...settings, compaction }, providers, choice, cwd: workspace });
    sessionId = agent.displayId;
    const session = new InteractiveSession(agent, new ScriptedTypist(lines(agent), out, style, pace), out, style);
    try {
      printBanner(session);
      await runLoop(session);
    } finally {
      await agent.close();
    }
  };

  await open({ kind: "new" }, (agent) => [
    {
      narration: "1. A multi-step tool turn: parallel tools, streaming, approvals with the diff (y = once, a = for the session); a line typed meanwhile is queued and steered in",
      text: demoPrompts.fix,
      during: demoPrompts.steer,
    },
    { text: "y" },
    { text: "a" },
    { narration: "2. Every turn and step starts at a checkpoint", text: "/checkpoints all" },
    { narration: "3. D-Mail: the model reads a long file and writes a draft, then sends its past self only the answer (the context bar drops, the draft is undone)", text: demoPrompts.dmail },
    { text: "y" },
    { narration: "4. A host rewrite: fix a typo in an earlier prompt and rerun from there", text: demoPrompts.typo },
    { text: "/edit" },
    { text: () => `/edit ${messageNumber(agent.soul.history, demoPrompts.typo)}` },
    { text: demoPrompts.edited },
    { narration: "5. Compaction: choose a strategy (an LLM summary here) and watch the bar drop", text: "/strategy simple" },
    { text: "/compact keep the decisions" },
    { narration: "6. The session is saved as it goes; exit and resume it", text: "/exit" },
  ]);
  await open({ kind: "resume", id: sessionId }, () => [
    { text: demoPrompts.resumed },
    { narration: "7. A paste: a long log is shown collapsed in the prompt and sent whole", text: `${demoPrompts.pasted} `, paste: demoLog },
    { text: "/rotations" },
    { text: "/exit" },
  ]);
  out.write(`\n${style.green("Demo done.")} ${style.dim(`Files: ${workspace}`)}\n`);
  return ExitCode.ok;

  function demoSettings(home: string): Settings {
    return {
      home,
      configPath: null,
      provider: "scripted",
      model: null,
      baseUrl: null,
      apiKey: null,
      maxContextSize: demoContextSize,
      thinking: null,
      compaction: null,
      compactModel: null,
      script: null,
      yolo: false,
      plan: false,
      dmail: true,
      projectContext: true,
      outputFormat: "text",
      shellEnvironment: defaultEnvironmentPolicy,
      mcpSources: [],
      mcpStartTimeoutMs: null,
      permissions: null,
      store: null,
      llmTimeouts: {},
      shellTimeoutMs: DEFAULT_SHELL_TIMEOUT_MS,
      maxTimeMs: null,
      compactionThreshold: null,
      fileRestore: "scan",
      fileRestoreMaxBytes: defaultMaxFileBytes,
      // The scripted tour runs the same everywhere: no sandbox, and no notice where there is none.
      sandbox: { mode: "off", network: false },
      prices: {},
      hooks: [],
      questionAnswers: noConfiguredAnswers,
      trustWorkspace: false,
      sessionRetention: null,
      imageInput: null,
      fetchAllowHosts: [],
      fetchAllowPrivate: [],
      fetchLimits: {},
    };
  }
}

/** The number of the user message saying `text` in `history`, for `/edit`. */
function messageNumber(history: readonly Message[], text: string): number {
  return history.findIndex((m) => m.role === "user" && extractText(m) === text);
}
