/**
 * Raw terminal input as keys: printable text, named keys (arrows, Enter,
 * Alt+Enter, Ctrl-letters, ...) and bracketed pastes (everything between
 * `ESC[200~` and `ESC[201~`, one piece however many chunks it arrives in).
 * A sequence cut at a chunk's end waits for the next chunk; a lone ESC at a
 * chunk's end is the Escape key.
 */

/** One key press, typed text, or a pasted text. */
export type Key = { kind: "text"; text: string } | { kind: "paste"; text: string } | { kind: "key"; name: KeyName };

/** The keys the editor knows. */
export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "escape"
  | "tab"
  | "shift-tab"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-k"
  | "ctrl-o"
  | "ctrl-r"
  | "ctrl-u"
  | "ctrl-w";

const pasteStart = "\u001b[200~";
const pasteEnd = "\u001b[201~";

/** CSI and SS3 sequences by what follows ESC. */
const sequences: Record<string, KeyName> = {
  "[A": "up",
  "[B": "down",
  "[C": "right",
  "[D": "left",
  "[H": "home",
  "[F": "end",
  OA: "up",
  OB: "down",
  OC: "right",
  OD: "left",
  OH: "home",
  OF: "end",
  "[1~": "home",
  "[4~": "end",
  "[7~": "home",
  "[8~": "end",
  "[3~": "delete",
  "[Z": "shift-tab",
  "[1;5C": "word-right",
  "[1;5D": "word-left",
  "[1;3C": "word-right",
  "[1;3D": "word-left",
  "[13;2u": "newline",
  "[13;3u": "newline",
  "[27;2;13~": "newline",
  b: "word-left",
  f: "word-right",
  "\r": "newline",
  "\n": "newline",
};

/** Control characters by code. */
const controls: Record<number, KeyName> = {
  0x01: "home",
  0x03: "ctrl-c",
  0x04: "ctrl-d",
  0x05: "end",
  0x08: "backspace",
  0x09: "tab",
  0x0a: "newline",
  0x0b: "ctrl-k",
  0x0d: "enter",
  0x0f: "ctrl-o",
  0x12: "ctrl-r",
  0x15: "ctrl-u",
  0x17: "ctrl-w",
  0x7f: "backspace",
};

/** Turns chunks of raw input into keys. */
export class KeyReader {
  #pending = "";
  #paste: string | null = null;

  /** The keys in `chunk` (and what an earlier chunk left unfinished). */
  read(chunk: string): Key[] {
    let data = this.#pending + chunk;
    this.#pending = "";
    const keys: Key[] = [];
    while (data) {
      if (this.#paste !== null) {
        const end = data.indexOf(pasteEnd);
        if (end < 0) {
          // Keep a possible start of the end marker for the next chunk.
          const keep = partialSuffix(data, pasteEnd);
          this.#paste += data.slice(0, data.length - keep);
          this.#pending = data.slice(data.length - keep);
          return keys;
        }
        keys.push({ kind: "paste", text: this.#paste + data.slice(0, end) });
        this.#paste = null;
        data = data.slice(end + pasteEnd.length);
        continue;
      }
      if (data.startsWith(pasteStart)) {
        this.#paste = "";
        data = data.slice(pasteStart.length);
        continue;
      }
      const char = data.codePointAt(0)!;
      if (char === 0x1b) {
        const taken = this.#escape(data, keys);
        if (taken < 0) {
          this.#pending = data;
          return keys;
        }
        data = data.slice(taken);
        continue;
      }
      if (char < 0x20 || char === 0x7f) {
        const name = controls[char];
        if (name) keys.push({ kind: "key", name });
        data = data.slice(1);
        continue;
      }
      const text = /^[^\u0000-\u001f\u007f]+/u.exec(data)![0];
      const last = keys.at(-1);
      if (last?.kind === "text") last.text += text;
      else keys.push({ kind: "text", text });
      data = data.slice(text.length);
    }
    return keys;
  }

  /** Reads the escape sequence at the start of `data`; returns its length, or -1 when it is cut off. */
  #escape(data: string, keys: Key[]): number {
    if (data.length === 1) {
      keys.push({ kind: "key", name: "escape" });
      return 1;
    }
    const next = data[1]!;
    if (next === "[" || next === "O") {
      const match = next === "[" ? /^\u001b\[[0-9;]*[~A-Za-z]/.exec(data) : /^\u001bO[A-Za-z]/.exec(data);
      if (!match) {
        if (pasteStart.startsWith(data) || /^\u001b(\[[0-9;]*|O)$/.test(data)) return -1;
        keys.push({ kind: "key", name: "escape" });
        return 1;
      }
      const name = sequences[match[0].slice(1)];
      if (name) keys.push({ kind: "key", name });
      return match[0].length;
    }
    if (next === "\u001b") {
      keys.push({ kind: "key", name: "escape" });
      return 1;
    }
    const name = sequences[next];
    if (name) keys.push({ kind: "key", name });
    else if (next === "\u007f") keys.push({ kind: "key", name: "ctrl-w" });
    return 2;
  }
}

/** How many characters at the end of `text` begin `marker` (a marker cut between chunks). */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (marker.startsWith(text.slice(-n))) return n;
  return 0;
}
