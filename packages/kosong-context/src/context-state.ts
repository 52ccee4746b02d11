/**
 * The state a context log restores to, folded from its records exactly as
 * kimi-cli's `Context.restore()` folds them: messages in order, the last
 * `_usage` token count, the last `_system_prompt`, and the next checkpoint id
 * (the last `_checkpoint` id + 1). Other `_` records are kept in the log and
 * ignored. kosong's plain linear files (messages and `_usage` only) restore
 * through the same fold.
 */
import type { Message } from "@kosong/core";
import type { ContextRecord } from "./context-record.js";
import type { ContextLogState, LogCheckpoint, LogPosition } from "./context-log.js";
import { scanContextFile, type ScanOptions } from "./record-scanner.js";
import type { RestoreReport } from "./restore-report.js";

/** Folds records into a {@link ContextLogState} as they are read. */
export class ContextStateBuilder {
  readonly messages: Message[] = [];
  tokenCount = 0;
  messagesBeforeLastUsage = 0;
  systemPrompt: string | null = null;
  nextCheckpointId = 0;
  readonly checkpoints: LogCheckpoint[] = [];
  otherRecords = 0;

  /** Applies one record, which starts at `position` in its log. */
  apply(record: ContextRecord, position: LogPosition): void {
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
          ...(record.label === undefined ? {} : { label: record.label }),
          position,
          messageCount: this.messages.length,
          tokenCount: this.tokenCount,
          messagesBeforeLastUsage: this.messagesBeforeLastUsage,
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
  finish(report: RestoreReport): ContextLogState {
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
 * into its state, skipping and reporting damaged lines; checkpoint positions
 * are byte offsets. Does not lock or modify the file; a missing file
 * restores to the empty state.
 */
export async function readContextFile(file: string, options: ScanOptions = {}): Promise<ContextLogState> {
  const builder = new ContextStateBuilder();
  const report = await scanContextFile(file, (scanned) => builder.apply(scanned.record, scanned.offset), options);
  return builder.finish(report);
}
