/**
 * `/checkpoints`: the conversation's checkpoints, each with its time, the
 * messages before it, what reverting to it drops and the files changed
 * after it. By default one per user prompt (the checkpoint before each
 * prompt, where a revert takes that prompt back); `/checkpoints all` lists
 * every step's too. A line wider than the terminal is cut with `…`.
 */
import { extractText, type Message } from "@kosong/core";
import { count } from "../../render/count.js";
import { cutToWidth } from "../../render/cut-to-width.js";
import { timestamp } from "../../render/timestamp.js";
import { isUserPrompt } from "../../render/user-prompt.js";
import { oneLine, visibleControls } from "../../render/visible-controls.js";
import type { InteractiveSession } from "./interactive-session.js";

const isSystemNote = (m: Message): boolean => m.role === "user" && extractText(m).startsWith("<system>");
const isPrompt = isUserPrompt;

/** Prints the checkpoints (`args` "all": every one, else one per prompt). */
export async function printCheckpoints(s: InteractiveSession, args: string): Promise<void> {
  const { checkpoints, fileJournal, history } = s.agent.context;
  if (checkpoints.length === 0) return s.print("No checkpoints yet.");
  const all = args === "all";
  const columns = s.out.isTTY ? s.out.columns : undefined;
  const { firstDroppedAt, promptBefore } = revertLandmarks(history);
  const changedAt = fileJournal ? await fileJournal.changedAtEach(checkpoints.map((c) => c.id)) : new Map<number, string[]>();
  let shown = 0;
  for (const c of checkpoints) {
    // What reverting to it takes away: a prompt and what followed, or an answer (named by its prompt) and what followed.
    const firstDropped = firstDroppedAt[c.messageCount];
    const beforePrompt = firstDropped !== undefined && isPrompt(firstDropped);
    if (!all && !beforePrompt) continue;
    shown++;
    const prompt = promptBefore[Math.min(c.messageCount, history.length)];
    const drops = !firstDropped ? "" : beforePrompt ? `drops "${oneLine(extractText(firstDropped), 50)}" onward` : prompt ? `drops the answer to "${oneLine(extractText(prompt), 40)}" onward` : "";
    const changed = changedAt.get(c.id) ?? [];
    const at = s.agent.checkpointTimes.timeOf(c);
    const head = `checkpoint ${c.id}${c.label ? ` "${visibleControls(c.label, { oneLine: true })}"` : ""}${at ? ` · ${timestamp(at)}` : ""} · ${count(c.messageCount, "message")} before it`;
    const tail = `${drops ? ` · ${drops}` : ""}${changed.length > 0 ? ` · changed: ${changed.map((f) => visibleControls(f, { oneLine: true })).join(", ")}` : ""}`;
    const line = columns === undefined ? head + tail : cutToWidth(head + tail, columns - 1);
    s.print(`${line.slice(0, head.length)}${s.style.dim(line.slice(head.length))}`);
  }
  const hidden = checkpoints.length - shown;
  if (hidden > 0) s.print(s.style.dim(`(${count(shown, "checkpoint")} before a prompt shown; ${hidden} more between steps: /checkpoints all)`));
}

/**
 * For each message count n of `history` (0 to its length), in one pass each
 * way: the first message from n on that is not a system note (what a revert
 * to a checkpoint after n messages drops first), and the last prompt of the
 * first n messages (undefined when there is none).
 */
function revertLandmarks(history: readonly Message[]): { firstDroppedAt: (Message | undefined)[]; promptBefore: (Message | undefined)[] } {
  const firstDroppedAt = new Array<Message | undefined>(history.length + 1).fill(undefined);
  for (let i = history.length - 1; i >= 0; i--) firstDroppedAt[i] = isSystemNote(history[i]!) ? firstDroppedAt[i + 1] : history[i];
  const promptBefore = new Array<Message | undefined>(history.length + 1).fill(undefined);
  for (let i = 0; i < history.length; i++) promptBefore[i + 1] = isPrompt(history[i]!) ? history[i] : promptBefore[i];
  return { firstDroppedAt, promptBefore };
}

