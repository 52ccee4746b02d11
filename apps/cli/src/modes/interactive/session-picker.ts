/**
 * Before an interactive session opens: `kosong --resume` without an id
 * lists the saved sessions (first prompt, age, size, folder) and reads which
 * to resume; a session chosen (or named) from another folder than the
 * current one is said so, with the choice of working in its folder (the
 * folder its conversation talks about) or staying here.
 */
import { realpath } from "node:fs/promises";
import type { SessionChoice } from "../../agent/agent-session.js";
import { count } from "../../render/count.js";
import type { Style } from "../../render/terminal-style.js";
import { oneLine, visibleControls } from "../../render/visible-controls.js";
import { formatSize } from "../../sessions/print-sessions.js";
import { findSession, latestSession, listSessions, type ListedSession } from "../../sessions/session-store.js";
import type { LineInput } from "./terminal-input.js";

/** Sessions the picker lists at most. */
const pickerSize = 20;

/** A session choice, or `pick`: ask which saved session (`kosong --resume` without an id). */
export type ChoiceOrPick = SessionChoice | { kind: "pick" };

/** What to open: the session choice and the working directory. */
export interface PickedSession {
  choice: SessionChoice;
  cwd: string;
}

/** Where the picker reads and writes. */
export interface PickerIo {
  input: LineInput;
  print: (line: string) => void;
  style: Style;
}

/**
 * Resolves `choice` for the interactive mode: `pick` asks which session; a
 * saved session of another folder asks whether to work there.
 */
export async function pickSession(home: string, cwd: string, choice: ChoiceOrPick, io: PickerIo, now = Date.now()): Promise<PickedSession> {
  if (choice.kind === "new" || choice.kind === "resume-file") return { choice, cwd };
  const here = await realpath(cwd);
  let session: ListedSession | null;
  if (choice.kind === "pick") {
    session = await askWhich(await listSessions(home), io, now);
    if (session === null) return { choice: { kind: "new" }, cwd };
  } else if (choice.kind === "session") {
    // `--session <id>`: that session exactly, or a new one with that id (opened as it is chosen).
    session = (await listSessions(home)).find((s) => s.id === choice.id) ?? null;
    if (session === null) return { choice, cwd };
  } else session = choice.kind === "resume" ? await findSession(home, choice.id) : await latestSession(home, here);
  const resume: SessionChoice = { kind: "resume", id: session.id };
  if (session.cwd === here) return { choice: resume, cwd };
  const there = await realpath(session.cwd).catch(() => null);
  const shown = visibleControls(session.cwd, { oneLine: true });
  if (there === null) {
    io.print(io.style.yellow(`This session ran in ${shown}, which is gone: its tools now act in ${visibleControls(here, { oneLine: true })}.`));
    return { choice: resume, cwd };
  }
  io.print(io.style.yellow(`This session ran in ${shown}, not here (${visibleControls(here, { oneLine: true })}): its conversation is about that folder.`));
  const answer = await io.input.readLine(io.style.yellow(`work in ${shown}? [Y/n] `), { remember: false });
  const stay = answer.kind === "line" && /^n/i.test(answer.text.trim());
  if (stay) io.print(io.style.dim("Staying here: the tools act in this folder."));
  return { choice: resume, cwd: stay ? cwd : there };
}

async function askWhich(sessions: ListedSession[], io: PickerIo, now: number): Promise<ListedSession | null> {
  const { style } = io;
  if (sessions.length === 0) {
    io.print(style.dim("No saved sessions yet: starting a new one."));
    return null;
  }
  const shown = sessions.slice(0, pickerSize);
  io.print(`Resume which session? ${style.dim(`(${count(sessions.length, "session")}, most recent first)`)}`);
  shown.forEach((s, i) => {
    const prompt = s.firstPrompt === null ? style.dim("(no prompt yet)") : oneLine(s.firstPrompt, 50);
    io.print(`${style.bold(String(i + 1).padStart(3))}  ${prompt}  ${style.dim(`${age(now - s.lastUsed)} · ${formatSize(s.size)} · ${visibleControls(s.cwd, { oneLine: true })}`)}`);
  });
  for (;;) {
    const answer = await io.input.readLine(style.cyan(`number (Enter: 1, Ctrl-C: a new session)› `), { remember: false });
    if (answer.kind !== "line") return null;
    const text = answer.text.trim();
    const n = text === "" ? 1 : Number(text);
    if (Number.isInteger(n) && n >= 1 && n <= shown.length) return shown[n - 1]!;
    io.print(style.dim(`  a number from 1 to ${shown.length}`));
  }
}

function age(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / 1440)} days ago`;
}
