/**
 * The prompt as a value: the text being edited, the input history and where
 * Up/Down browse in it, and Ctrl-R's search. {@link promptReducer} turns a
 * key into the next state and the effects the terminal acts on (the line
 * entered, Ctrl-C, the end of input, Ctrl-O's output, a completion to look
 * up); it writes nothing and reads no clock, so each key's result can be
 * checked alone. A state's buffer is never edited in place: the reducer
 * edits a copy.
 */
import { visibleControls } from "../../render/visible-controls.js";
import { commonStart, type Completion } from "./completer.js";
import { EditBuffer } from "./edit-buffer.js";
import type { Key } from "./key-reader.js";

/** Ctrl-R's search through the history: what is typed, where the match is, and the text before the search. */
export interface HistorySearch {
  readonly query: string;
  readonly at: number;
  readonly before: string;
}

/** The prompt being edited. */
export interface PromptState {
  readonly buffer: EditBuffer;
  /** Earlier lines, the most recent first. */
  readonly history: readonly string[];
  /** The history line shown (Up/Down), or -1 for the text being written. */
  readonly browsing: number;
  /** The text being written, kept while the history is browsed. */
  readonly draft: string;
  readonly search: HistorySearch | null;
}

/** What a key asks the terminal to do besides showing the new state. */
export type PromptEffect =
  /** Enter: the line (paste markers replaced by what was pasted) is read. */
  | { kind: "submit"; text: string }
  /** Ctrl-C; `hadText` when the line was not empty. */
  | { kind: "interrupt"; hadText: boolean }
  /** Ctrl-D on an empty line. */
  | { kind: "eof" }
  /** Ctrl-O: show the last tool's whole output above the prompt. */
  | { kind: "expand" }
  /** Tab: complete the word before the cursor (`before`), then {@link applyCompletion}. */
  | { kind: "complete"; before: string }
  /** Text (safe to show) to write above the prompt. */
  | { kind: "show"; text: string };

/** A state and what to do for it. */
export interface PromptStep {
  state: PromptState;
  effects: PromptEffect[];
}

/** The effects that end reading the prompt. */
export function endsPrompt(effect: PromptEffect): boolean {
  return effect.kind === "submit" || effect.kind === "interrupt" || effect.kind === "eof";
}

/** A prompt starting with `buffer`'s text, browsing `history` (most recent first). */
export function initialPrompt(buffer: EditBuffer, history: readonly string[]): PromptState {
  return { buffer, history, browsing: -1, draft: "", search: null };
}

/** The state after `key`, and its effects. */
export function promptReducer(state: PromptState, key: Key): PromptStep {
  if (state.search !== null) {
    const searched = searchKey(state, state.search, key);
    if (searched) return searched;
    // Any other key keeps the match and goes on as itself.
    state = { ...state, search: null };
  }
  const buffer = state.buffer.clone();
  const next = (changes: Partial<PromptState> = {}, effects: PromptEffect[] = []): PromptStep => ({ state: { ...state, buffer, ...changes }, effects });
  if (key.kind === "text") buffer.insert(key.text);
  else if (key.kind === "paste") buffer.paste(key.text);
  else
    switch (key.name) {
      case "ctrl-r":
        return next({ search: { query: "", at: 0, before: buffer.submitted() } });
      case "enter":
        return buffer.continueLine() ? next() : next({}, [{ kind: "submit", text: buffer.submitted() }]);
      case "newline":
        buffer.insert("\n");
        break;
      case "ctrl-c":
        return next({}, [{ kind: "interrupt", hadText: buffer.text.length > 0 }]);
      case "ctrl-d":
        if (!buffer.text) return next({}, [{ kind: "eof" }]);
        buffer.delete();
        break;
      case "up":
        return browseUp(state, buffer);
      case "down":
        return browseDown(state, buffer);
      case "ctrl-o":
        return next({}, [{ kind: "expand" }]);
      case "tab":
        return next({}, [{ kind: "complete", before: buffer.text.slice(0, buffer.cursor) }]);
      default:
        buffer.editKey(key.name);
    }
  return next();
}

/** A key while Ctrl-R searches; null when the key ends the search and goes on as itself. */
function searchKey(state: PromptState, search: HistorySearch, key: Key): PromptStep | null {
  if (key.kind === "text" || key.kind === "paste") return { state: findFrom(state, { ...search, query: search.query + key.text }, search.at), effects: [] };
  if (key.name === "backspace") return { state: findFrom(state, { ...search, query: search.query.slice(0, -1) }, 0), effects: [] };
  if (key.name === "ctrl-r") return { state: findFrom(state, search, search.at + 1), effects: [] };
  // Esc and Ctrl-C give the text before the search back.
  if (key.name === "escape" || key.name === "ctrl-c") return { state: { ...state, buffer: new EditBuffer(search.before), search: null }, effects: [] };
  return null;
}

/** The search moved to the first history line from `start` on holding its query (unchanged when none does). */
function findFrom(state: PromptState, search: HistorySearch, start: number): PromptState {
  const at = state.history.findIndex((line, i) => i >= start && line.includes(search.query));
  if (at < 0) return { ...state, search };
  const buffer = state.buffer.clone();
  buffer.set(state.history[at]!);
  return { ...state, buffer, search: { ...search, at } };
}

function browseUp(state: PromptState, buffer: EditBuffer): PromptStep {
  if (buffer.up() || state.browsing + 1 >= state.history.length) return { state: { ...state, buffer }, effects: [] };
  const draft = state.browsing < 0 ? buffer.submitted() : state.draft;
  const browsing = state.browsing + 1;
  buffer.set(state.history[browsing]!);
  return { state: { ...state, buffer, browsing, draft }, effects: [] };
}

function browseDown(state: PromptState, buffer: EditBuffer): PromptStep {
  if (buffer.down() || state.browsing < 0) return { state: { ...state, buffer }, effects: [] };
  const browsing = state.browsing - 1;
  buffer.set(browsing < 0 ? state.draft : state.history[browsing]!);
  return { state: { ...state, buffer, browsing }, effects: [] };
}

/**
 * Puts a completion of the word before the cursor in place: the only
 * candidate (with a space after it, unless a folder), or the start all
 * candidates share; when that adds nothing, the candidates are shown.
 * Nothing happens (null) when the text changed since the completion was
 * asked for (`asked`): keys typed meanwhile win.
 */
export function applyCompletion(state: PromptState, asked: PromptState, completion: Completion | null): PromptStep | null {
  const { text, cursor } = state.buffer;
  if (!completion || text !== asked.buffer.text || cursor !== asked.buffer.cursor) return null;
  const { from, candidates } = completion;
  const only = candidates.length === 1 ? candidates[0]! : null;
  const start = only ?? commonStart(candidates);
  const buffer = state.buffer.clone();
  if (only !== null) buffer.replaceBefore(from, only.endsWith("/") ? only : `${only} `);
  else if (start.length > cursor - from) buffer.replaceBefore(from, start);
  else return { state, effects: [{ kind: "show", text: candidates.map((c) => visibleControls(c, { oneLine: true })).join("  ") }] };
  return { state: { ...state, buffer }, effects: [] };
}
