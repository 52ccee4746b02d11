/** Shared pieces of the recall tests: a file-reading tool over fixed contents, and a strategy that keeps the last messages. */
import { defineTool, extractText, type Message } from "@kosong/core";
import type { Compaction } from "@kosong/soul";
import { z } from "zod";

/** `ReadFile` over `files` (path to content); an unknown path is an error. */
export function readFileTool(files: Record<string, string>) {
  return defineTool({
    name: "ReadFile",
    description: "Reads a file.",
    parameters: z.object({ path: z.string() }),
    async execute({ path }) {
      const content = files[path];
      if (content === undefined) throw new Error(`no such file: ${path}`);
      return content;
    },
  });
}

/** A strategy without a model that keeps the last `keep` messages; `seen` records each history it was given. */
export function keepLast(keep: number) {
  const seen: Array<readonly Message[]> = [];
  const strategy: Compaction = {
    name: "keep-last",
    compact: async (history) => {
      seen.push(history);
      const messages = history.slice(-keep);
      return { messages, usage: null, details: { kept: messages.length, dropped: history.length - messages.length, stubs: 0, filesRecovered: [], summarized: false, notes: [] } };
    },
  };
  return { strategy, seen };
}

/** `lines` numbered lines of filler with `marker` in the middle. */
export function bigFile(lines: number, marker: string): string {
  return Array.from({ length: lines }, (_, i) => (i === Math.floor(lines / 2) ? marker : `// filler line ${i} of a long source file`)).join("\n");
}

/** The first recall pointer in the text of `history` (the compaction's notice or an aged output), or null. */
export function firstPointer(history: readonly Message[]): string | null {
  for (const message of history) {
    const match = /\br\d+:\d+(?:-\d+)?\b/.exec(extractText(message));
    if (match !== null) return match[0];
  }
  return null;
}

/** The text of the tool result answering `callId`. */
export function resultOf(history: readonly Message[], callId: string): string {
  const message = history.find((m) => m.role === "tool" && m.tool_call_id === callId);
  if (message === undefined) throw new Error(`no result for ${callId}`);
  return extractText(message);
}
