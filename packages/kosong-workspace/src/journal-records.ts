/** The records of a file journal (`journal.jsonl`, one JSON object per line, append-only). */
import type { FileStamp } from "./workspace-files.js";

/** A path's state as the journal keeps it: content by blob hash; states it could not keep say why. */
export type StoredState =
  | { k: "missing" }
  | { k: "file"; blob: string; mode: number; size: number }
  | { k: "link"; target: string }
  | { k: "big"; size: number }
  | { k: "unsupported"; why: string };

/** One file of a restore: the state it replaced, and the state it restores. */
export interface RestoreEntry {
  path: string;
  prior: StoredState;
  target: StoredState;
}

/** What made a restore. */
export type RestoreKind = "revert" | "clear" | "rotation";

export type JournalRecord =
  /** A checkpoint was made on branch `b`. */
  | { t: "cp"; id: number; b: number }
  /** The state of `path` before the agent changed it. */
  | { t: "pri"; path: string; s: StoredState }
  /** The stamp of `path` after the agent (or a restore) changed it. */
  | { t: "aft"; path: string; st: FileStamp }
  /**
   * A restore begins (written before anything changes): the context goes
   * from branch `from` to branch `b` (a new branch, this record's position,
   * when `parent` is set or `kind` is "clear"), then `files` are restored.
   * `before` is the fingerprint of the conversation before the context's
   * step: another one on reopen means the step happened and the restore is
   * completed.
   */
  | { t: "rev"; kind: RestoreKind; from: number; b: number; parent: number | null; fork: number | null; before: string; files: RestoreEntry[] }
  /** The restore at position `r` finished; the context's step kept the old log as rotation `rotation`. */
  | { t: "end"; r: number; rotation: number | null }
  /** The restore at position `r` was rolled back (the context's step never happened). */
  | { t: "abort"; r: number }
  /**
   * A command (`Shell`) begins: `list` is the hash of the listing of the scan
   * before it (`[key, stamp][]` as JSON, in `scans/` until the command is
   * over); `call`, the tool call that runs it, when the tool gave it.
   */
  | { t: "scan"; list: string; call?: CommandToolCall }
  /** The command of the scan record at position `r` is over, its changes journaled. */
  | { t: "scanned"; r: number }
  /** A command (`command`, when the tool named it) whose changes were not (all) journaled, and why. */
  | { t: "unscanned"; command: string | null; why: string };

/** The tool call that runs a command, kept so that a crash during the command can still be answered to the model. */
export interface CommandToolCall {
  /** The tool call's id. */
  id: string;
  /** The tool's name (`Shell`). */
  name: string;
  /** Its arguments, as the model sent them (JSON). */
  arguments: string;
}
