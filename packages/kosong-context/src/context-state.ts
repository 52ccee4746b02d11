/**
 * The state a context file restores to, folded from its records exactly as
 * kimi-cli's `Context.restore()` folds them: messages in order, the last
 * `_usage` token count, the last `_system_prompt`, and the next checkpoint id
 * (the last `_checkpoint` id + 1). Other `_` records are kept in the file and
 * ignored. kosong's plain linear files (messages and `_usage` only) restore
 * through the same fold.
 */
import type { Message } from "@kosong/core";
import { scanContextFile, type ScanOptions, type ScannedRecord } from "./record-scanner.js";
import type { RestoreReport } from "./restore-report.js";

/**
 * A `_checkpoint` record and the state just before it: what reverting to
 * this checkpoint restores (kimi-cli's `revert_to(id)` keeps everything
 * before the first `_checkpoint` record with that id).
 */
export interface CheckpointMark {
  id: number;
  /** Byte offset of the `_checkpoint` line: truncate here to revert to it. */
  offset: number;
  /** 1-based line number. */
  line: number;
  /** Messages before the checkpoint. */
  messageCount: number;
  /** Token count before the checkpoint. */
  tokenCount: number;
  /** System prompt before the checkpoint. */
  systemPrompt: string | null;
  /** Next checkpoint id before the checkpoint. */
  nextCheckpointId: number;
}

/** Everything a context file restores to. */
export interface ContextFileState {
  /** Messages in file order (validated; invalid lines are in `report.skipped`). */
  messages: Message[];
  /** The last `_usage` token count, 0 without one. */
  tokenCount: number;
  /** How many messages preceded the last `_usage` record (0 without one). */
  messagesBeforeLastUsage: number;
  /** The last `_system_prompt`, null without one. */
  systemPrompt: string | null;
  /** The last `_checkpoint` id + 1 (kimi-cli's `n_checkpoints`), 0 without one. */
  nextCheckpointId: number;
  /** Every `_checkpoint` record in file order. */
  checkpoints: CheckpointMark[];
  /** How many other `_` records were seen (kept in the file, ignored here). */
  otherRecords: number;
  /** Lines read and lines skipped. */
  report: RestoreReport;
}

/** Folds records into a {@link ContextFileState} as they are scanned. */
export class ContextStateBuilder {
  readonly messages: Message[] = [];
  tokenCount = 0;
  messagesBeforeLastUsage = 0;
  systemPrompt: string | null = null;
  nextCheckpointId = 0;
  readonly checkpoints: CheckpointMark[] = [];
  otherRecords = 0;

  /** Applies one scanned record. */
  apply(scanned: ScannedRecord): void {
    const record = scanned.record;
    switch (record.kind) {
      case "message":
        this.messages.push(record.message);
        break;
      case "usage":
        this.tokenCount = record.tokenCount;
        this.messagesBeforeLastUsage = this.messages.length;
        break;
      case "checkpoint":
        this.checkpoints.push({
          id: record.id,
          offset: scanned.offset,
          line: scanned.line,
          messageCount: this.messages.length,
          tokenCount: this.tokenCount,
          systemPrompt: this.systemPrompt,
          nextCheckpointId: this.nextCheckpointId,
        });
        this.nextCheckpointId = record.id + 1;
        break;
      case "system_prompt":
        this.systemPrompt = record.content;
        break;
      case "other":
        this.otherRecords += 1;
        break;
    }
  }

  /** The state with `report` attached. */
  finish(report: RestoreReport): ContextFileState {
    return {
      messages: this.messages,
      tokenCount: this.tokenCount,
      messagesBeforeLastUsage: this.messagesBeforeLastUsage,
      systemPrompt: this.systemPrompt,
      nextCheckpointId: this.nextCheckpointId,
      checkpoints: this.checkpoints,
      otherRecords: this.otherRecords,
      report,
    };
  }
}

/**
 * Reads a context file (kimi-cli's `context.jsonl` or kosong's linear JSONL)
 * into its state, skipping and reporting damaged lines. Does not lock or
 * modify the file; a missing file restores to the empty state.
 */
export async function readContextFile(file: string, options: ScanOptions = {}): Promise<ContextFileState> {
  const builder = new ContextStateBuilder();
  const report = await scanContextFile(file, (scanned) => builder.apply(scanned), options);
  return builder.finish(report);
}
