/**
 * Keys read while a turn runs, as a reducer: text typed is kept to be
 * entered (and shown in the footer), Enter hands a line on to be queued,
 * Ctrl-C, Esc and Ctrl-O (expand or collapse the children's blocks) are handed on. Pure: {@link typeAheadReducer} edits a copy
 * of the buffer and returns what to do.
 */
import type { EditBuffer } from "./edit-buffer.js";
import type { Key } from "./key-reader.js";

/** What a key read during a turn asks for. */
export type TypeAheadEffect = { kind: "interrupt" } | { kind: "escape" } | { kind: "expand" } | { kind: "line"; text: string };

/** The text typed ahead after `key`, and its effects. */
export function typeAheadReducer(state: EditBuffer, key: Key): { state: EditBuffer; effects: TypeAheadEffect[] } {
  const buffer = state.clone();
  const effects: TypeAheadEffect[] = [];
  if (key.kind === "text") buffer.insert(key.text);
  else if (key.kind === "paste") buffer.paste(key.text);
  else if (key.name === "ctrl-c") effects.push({ kind: "interrupt" });
  else if (key.name === "escape") effects.push({ kind: "escape" });
  else if (key.name === "ctrl-o") effects.push({ kind: "expand" });
  else if (key.name === "enter") {
    if (!buffer.continueLine()) {
      const text = buffer.submitted();
      buffer.set("");
      if (text.trim()) effects.push({ kind: "line", text });
    }
  } else if (key.name === "newline") buffer.insert("\n");
  else buffer.editKey(key.name);
  return { state: buffer, effects };
}

/** The text typed ahead with a queued line taken back (Esc) put before it, to edit; unchanged when none was. */
export function takenBack(state: EditBuffer, back: string | undefined): EditBuffer {
  if (back === undefined) return state;
  const buffer = state.clone();
  buffer.set(buffer.text ? `${back}\n${buffer.text}` : back);
  return buffer;
}
