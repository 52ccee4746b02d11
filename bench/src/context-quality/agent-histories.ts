/**
 * Long generated agent histories with planted facts, for the context-quality
 * benchmark: user constraints, file paths, error messages and their fixes,
 * decisions, between bulky tool outputs and chatter, as a coding agent's
 * session looks. Deterministic for a seed.
 */
import { assistantMessage, type Message, toolCall, toolMessage, userMessage } from "@kosong/core";

/** A fact that a compaction should keep, and where it was planted. */
export type Fact = { kind: "constraint" | "file" | "error" | "fix" | "decision"; text: string };

/** A generated history and the facts planted in it. */
export type AgentHistory = { messages: Message[]; facts: Fact[] };

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODULES = ["parser", "lexer", "store", "router", "cache", "config", "logger", "client", "server", "schema"];
const LIBS = ["zod", "valibot", "undici", "pino", "vitest", "tsup", "p-retry", "commander"];
const CHATTER = [
  "Let me look at the next file.",
  "Reading the surrounding code first.",
  "That file looks fine; moving on.",
  "Checking how this is used elsewhere.",
  "I will run the tests after this change.",
];

/** Code-like filler of about `lines` lines. */
function codeBlock(random: () => number, name: string, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const v = Math.floor(random() * 1000);
    out.push(random() < 0.2 ? `// ${name}: handles case ${v} of the ${MODULES[v % MODULES.length]} flow` : `  const ${name}${i} = compute${v % 7}(input.${name}, ${v});`);
  }
  return `export function ${name}(input: Input): Output {\n${out.join("\n")}\n}`;
}

/** One history of `turns` user turns with tool rounds and planted facts. */
export function agentHistory(seed: number, turns = 6): AgentHistory {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const messages: Message[] = [];
  const facts: Fact[] = [];
  let call = 0;
  let id = seed * 100;
  const round = (name: string, args: Record<string, string>, output: string, text = ""): void => {
    const callId = `call_${call++}`;
    messages.push(assistantMessage(text, [toolCall(callId, name, args)]), toolMessage(callId, output));
  };

  for (let turn = 0; turn < turns; turn++) {
    const module = pick(MODULES);
    id++;
    const constraint = `keep the public name ${module}_${id} unchanged`;
    facts.push({ kind: "constraint", text: constraint });
    messages.push(userMessage(`Please refactor the ${module} module so it streams its input. Constraint: ${constraint}.`));
    const steps = 4 + Math.floor(random() * 5);
    for (let step = 0; step < steps; step++) {
      const path = `/repo/src/${module}/${pick(MODULES)}_${id}_${step}.ts`;
      if (step === 0 || random() < 0.3) facts.push({ kind: "file", text: path });
      const write = random() < 0.3;
      round(write ? "Edit" : "Read", { path }, write ? "Edited 1 file." : codeBlock(random, `${module}Step${step}`, 30 + Math.floor(random() * 90)), random() < 0.5 ? pick(CHATTER) : "");
    }
    if (turn % 2 === 0) {
      const field = `field_${id}`;
      const error = `TypeError: cannot read properties of undefined (reading '${field}')`;
      const fix = `fixed by initialising ${field} in create${module}()`;
      facts.push({ kind: "error", text: error }, { kind: "fix", text: fix });
      round("Shell", { command: "pnpm test" }, `<system>ERROR: Command failed with exit code 1: ${error}\n    at ${module}.ts:${10 + turn}:5</system>`);
      messages.push(assistantMessage(`The test run failed because ${field} was never initialised; ${fix}.`));
      round("Shell", { command: "pnpm test" }, `${"ok ".repeat(20)}\nAll ${40 + turn} tests passed.`);
    }
    if (turn % 2 === 1) {
      const decision = `decided to use ${pick(LIBS)} for the ${module}_${id} validation`;
      facts.push({ kind: "decision", text: decision });
      messages.push(assistantMessage(`After comparing the options I ${decision}, since it is already a dependency.`));
    }
    round("Shell", { command: "git diff --stat" }, Array.from({ length: 25 }, (_, i) => ` src/${module}/f${i}.ts | ${i + 3} ++-`).join("\n"));
    messages.push(assistantMessage(`The ${module} module now streams its input. ${pick(CHATTER)}`));
  }
  return { messages, facts };
}

/** Everything a model would read of `messages`: texts, think parts and tool-call arguments. */
export function readableText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === "text") parts.push(part.text);
      else if (part.type === "think") parts.push(part.think);
    }
    for (const c of message.tool_calls ?? []) parts.push(c.function.arguments ?? "");
  }
  return parts.join("\n");
}
