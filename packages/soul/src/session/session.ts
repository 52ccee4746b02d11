/**
 * The session a soul runs in, as its tools see it (`context.session`).
 */
import type { FileReader, FileRegistry } from "../compaction/index.js";
import type { SessionJournal } from "@kosong/workspace";
import type { ContextRecall } from "../recall/context-recall.js";
import type { DenwaRenji } from "../dmail/denwa-renji.js";

/** What a tool learns about the session it runs in. */
export interface SoulSession {
  /** The session id (given to the soul, or a random UUID). */
  readonly id: string;
  /** The working directory the agent works in, when the host said so. */
  readonly workDir: string | null;
  /** The files the session's tools read and wrote (tools record into it; compaction reads it). */
  readonly files: FileRegistry;
  /** The context's file journal (a `FileJournal`, null without one): tools declare their writes to it, see `declareWrite` in `@kosong/workspace`. */
  readonly fileJournal: SessionJournal | null;
  /** Where the `SendDMail` tool leaves its D-Mail. */
  readonly denwaRenji: DenwaRenji;
  /** What the `Recall` tool reads from: the soul's context, its rotations included. */
  readonly recall: ContextRecall;
}

/** The session-related options of a soul. */
export interface SoulSessionOptions {
  /** The session id (default: a random UUID). */
  id?: string;
  /** The working directory (default: none). */
  workDir?: string;
  /** The file registry to share (default: a new one). */
  files?: FileRegistry;
  /**
   * The journal the tools declare their writes to. Default: the context's
   * (`context.fileJournal`). A child soul passes its parent's, so the
   * parent's time travel restores the files the child wrote (its own
   * context then has no journal: its checkpoints are not the parent's).
   */
  fileJournal?: SessionJournal | null;
  /**
   * Reads the registry's files back when a compaction recovers them
   * (`AutoCompaction`). Default: `nodeFileReader()`, at most 1 MB of each
   * file as UTF-8.
   */
  readFile?: FileReader;
}
