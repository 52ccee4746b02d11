/**
 * The file journal: the workspace files the agent changes, recorded so that
 * reverting the conversation puts them back as they were.
 *
 * Before a tool changes a file it declares the write ({@link FileJournal.declareWrite}):
 * the file's state (content as a content-addressed blob, permission bits, a
 * symlink's target, or "did not exist") is appended to `journal.jsonl`,
 * durably, before the change. Checkpoints leave a marker. A path's state at a
 * point of the journal is the state recorded by its first record after that
 * point (or its current state when there is none): every change the agent
 * makes, restores included, is recorded first. So a revert to checkpoint k
 * restores each file to its first record after k's marker, and journals the
 * state it replaces, which makes the restore itself undoable
 * (`restoreRotation` restores to the point where the revert began).
 *
 * Checkpoint ids are reused after a revert: the journal keeps the context's
 * branches (a revert starts a branch forking at the checkpoint, a clear an
 * unrelated one, `restoreRotation` goes back to the branch the rotation
 * held) to find the marker of the checkpoint the context means.
 *
 * A file changed outside the agent since the agent (or a restore) last wrote
 * it (its size, mtime, mode or kind differ) is a conflict: left alone and
 * reported, unless the restore is forced.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { BlobStore, hashBytes } from "./blob-store.js";
import { CheckpointMarkers } from "./checkpoint-markers.js";
import { readJournalLines } from "./journal-lines.js";
import { mapLimit } from "./map-limit.js";
import type { ContextJournal, FileRecoveryReport, FileRestoreReport, InterruptedCommandReport, PendingRestore, RestoreTarget } from "./context-journal.js";
import type { DeclaredWrite, ScannedCommand, ToolJournal } from "./tool-journal.js";
import type { CommandToolCall, JournalRecord, RestoreEntry, RestoreKind, StoredState } from "./journal-records.js";
import { sameStamp, scanWorkspace, type ScanLimits, type ScannedFile } from "./workspace-scan.js";
import { missingStamp, workspaceKey, type FileStamp, type FileState, type ReadFileState, type WorkspaceFiles } from "./workspace-files.js";

/** The default size cap of a journaled file: 10 MiB. */
export const defaultMaxFileBytes = 10 * 1024 * 1024;

/** Options of a {@link FileJournal}. */
export interface FileJournalOptions {
  /** The folder of the journal (`journal.jsonl` and `blobs/`), in the session's storage. */
  dir: string;
  /** The workspace, read and restored through it (`nodeWorkspaceFiles(root)`: confined to `root`). */
  files: WorkspaceFiles;
  /** Files larger than this (bytes) are not journaled, and a revert says so. Default {@link defaultMaxFileBytes}. */
  maxFileBytes?: number;
  /**
   * The scan of the workspace around a `Shell` command ({@link FileJournal.scanCommand}):
   * its limits (default `defaultScanLimits`: 2,000 files, 20 MiB), or false
   * to journal declared writes only.
   */
  commandScan?: ScanLimits | false;
}

interface PathEntry {
  seq: number;
  s: StoredState;
  /** The branch the record was appended on. */
  b: number;
}

interface LastTouch {
  prior: StoredState;
  stamp: FileStamp | null;
}

const BASE_BRANCH = -1;

/** Files read, stored or replaced at once by a restore (their fsyncs overlap). */
const PARALLEL_FILES = 8;

/** The file journal of one session (see the file's doc). Operations run one at a time, in call order. */
export class FileJournal implements ContextJournal, ToolJournal {
  readonly files: WorkspaceFiles;
  readonly maxFileBytes: number;
  readonly #dir: string;
  readonly #blobs: BlobStore;
  /** The listings of the scans before commands (`scans/`), each removed once its command is over. */
  readonly #listings: BlobStore;
  #handle: FileHandle | null = null;
  #opening: Promise<void> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #seq = 0;
  #branch = BASE_BRANCH;
  #lastMarker = -1;
  readonly #branches = new Map<number, { parent: number | null; fork: number | null }>();
  readonly #markers = new CheckpointMarkers();
  readonly #rotations = new Map<number, { seq: number; branch: number }>();
  readonly #entries = new Map<string, PathEntry[]>();
  readonly #touches = new Map<string, LastTouch>();
  readonly #revs = new Map<number, Extract<JournalRecord, { t: "rev" }>>();
  #unfinished: number | null = null;
  /** The scan record of a command not finished (a crash interrupted it, when found on open). */
  /** The scan records of commands not finished, by position: their listing's hash (a crash interrupted them, when found on open). */
  readonly #openScans = new Map<number, string>();
  /** The tool calls of the open scans that have one, by the scan record's position. */
  readonly #scanCalls = new Map<number, CommandToolCall>();
  readonly #scanLimits: ScanLimits | false;
  /** The scans before the commands running now (what they saw, and which keys they cover), by scan record position (oldest first). */
  readonly #scanning = new Map<number, { contents: ReadonlyMap<string, ScannedFile>; covers: (key: string) => boolean }>();
  /** The commands whose changes were not (all) journaled, by record position. */
  readonly #unscanned: { seq: number; command: string | null; why: string }[] = [];
  /** The files seen by the last command scan, with their content then (at most the scan's byte limit in all). */
  #scanned: ReadonlyMap<string, ScannedFile> = new Map();

  constructor(options: FileJournalOptions) {
    this.files = options.files;
    this.maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
    this.#scanLimits = options.commandScan ?? {};
    this.#dir = options.dir;
    this.#blobs = new BlobStore(path.join(options.dir, "blobs"));
    this.#listings = new BlobStore(path.join(options.dir, "scans"));
  }

  /**
   * Declares that the files `paths` (absolute inside the workspace, or
   * relative to it) are about to change: their current state is recorded,
   * durably, before it resolves.
   */
  declareWrite(paths: readonly string[]): Promise<DeclaredWrite> {
    return this.#run(async () => {
      const notJournaled: DeclaredWrite["notJournaled"] = [];
      const keys: string[] = [];
      const records: JournalRecord[] = [];
      const blobs: Promise<string>[] = [];
      for (const requested of paths) {
        let key: string;
        try {
          key = workspaceKey(this.files.root, requested);
        } catch (error) {
          notJournaled.push({ path: requested, reason: (error as Error).message });
          continue;
        }
        keys.push(key);
        // Only a path's first record after the last marker tells a state at a marker: later ones are not needed.
        if ((this.#entries.get(key)?.at(-1)?.seq ?? -1) > this.#lastMarker || records.some((r) => r.t === "pri" && r.path === key)) continue;
        // A command running now may have changed the file already: its state before that command is the one to keep.
        const s = this.#storeLater(this.#beforeCommands(key) ?? (await this.#read(key)), blobs);
        if (s.k === "big" || s.k === "unsupported") notJournaled.push({ path: key, reason: describeUnjournaled(s) });
        records.push({ t: "pri", path: key, s });
      }
      // The blobs are written (a failure leaves no record naming them), then their contents, their
      // folder and the records naming them are made durable at once, all before the write: a crash
      // before all are leaves records whose blob is missing or damaged at the journal's end, which
      // the next open drops (their change never happened).
      await Promise.all(blobs);
      await Promise.all([this.#blobs.sync(), records.length > 0 ? this.#append(records, "records") : undefined]);
      return { notJournaled, done: () => this.#run(() => this.#stampAfter(keys)) };
    });
  }

  /**
   * Begins journaling a command whose writes are not declared (`Shell`):
   * scans the workspace (see `workspace-scan.ts`) and keeps each file's
   * content in memory (read again only when its stamp changed since the last
   * scan); {@link ScannedCommand.finish} scans again and journals the prior
   * state of what changed. Unlike a declared write, the records are written
   * after the change; the listing of the scan before is made durable first,
   * so that the next open finds what a command a crash interrupted changed
   * (see {@link FileJournal.recover}). A write declared while the command
   * runs keeps the file's state this scan saw (the command may have changed
   * it already). A command whose changes are not journaled (a scan over its
   * limit) is recorded, with `command` (its text) and why, and a revert past
   * it lists it in {@link FileRestoreReport.commandsNotJournaled}. `call`,
   * the tool call running the command, is kept with the scan, so that after
   * a crash {@link InterruptedCommandReport.calls} names it.
   */
  scanCommand(command: string | null = null, call?: CommandToolCall): Promise<ScannedCommand> {
    return this.#run(async () => {
      const limits = this.#scanLimits;
      if (limits === false) return { finish: () => Promise.resolve({ changed: [], notice: null }) };
      const before = await scanWorkspace(this.files.root, limits, { known: this.#scanned, maxFileBytes: this.maxFileBytes });
      if (before.stamps === null) {
        this.#scanned = new Map();
        const notice = `${before.limitHit}, over the scan's limit: what this command changes is not journaled, and a revert will not restore it`;
        // Recorded for the revert's report: the user is told which command a revert does not undo.
        await this.#append([{ t: "unscanned", command, why: notice }], "none");
        return { finish: () => Promise.resolve({ changed: [], notice }) };
      }
      this.#scanned = before.contents;
      // The listing is durable before the command runs: a crash during it is found on the next open.
      const list = await this.#listings.put(Buffer.from(JSON.stringify([...before.stamps])));
      const seq = this.#seq;
      await Promise.all([this.#listings.sync(), this.#append([call === undefined ? { t: "scan", list } : { t: "scan", list, call }], "records")]);
      this.#scanning.set(seq, { contents: before.contents, covers: before.covers });
      return { finish: () => this.#run(() => this.#journalScanned(seq, before.contents, limits, command)) };
    });
  }

  /** Journals the prior state (in `before`) of each file the command of the scan record `scan` created, changed or deleted. */
  async #journalScanned(scan: number, before: ReadonlyMap<string, ScannedFile>, limits: ScanLimits, command: string | null): Promise<{ changed: string[]; notice: string | null }> {
    const { changed, limitHit } = await this.#journalChanges(scan, before, limits, (key) => this.#store(before.get(key)?.state ?? { kind: "missing" }));
    if (limitHit === null) return { changed, notice: null };
    const notice = `${limitHit} after the command, over the scan's limit: the files it created are not journaled, and a revert will not delete them`;
    await this.#append([{ t: "unscanned", command, why: notice }], "none");
    return { changed, notice };
  }

  /**
   * Scans again and journals, with the prior state `priorOf` gives, each
   * file created, changed or deleted since the scan `before` of the scan
   * record `scan` (not those already recorded since the last marker), then
   * closes that record.
   */
  async #journalChanges(scan: number, before: ReadonlyMap<string, { stamp: FileStamp }>, limits: ScanLimits, priorOf: (key: string) => Promise<StoredState>): Promise<{ changed: string[]; journaled: string[]; limitHit: string | null }> {
    const now = await scanWorkspace(this.files.root, limits);
    const after = now.stamps;
    const changed: string[] = [];
    for (const [key, { stamp }] of before) {
      // Over the limit after the command, the files known before are looked at one by one.
      const current = after === null ? await this.files.stamp(key).catch(() => missingStamp) : (after.get(key) ?? missingStamp);
      if (!sameStamp(current, stamp)) changed.push(key);
    }
    // A scan over the limit after the command sees no created file: they are not journaled.
    for (const key of after?.keys() ?? []) if (!before.has(key)) changed.push(key);
    const records: JournalRecord[] = [];
    for (const key of changed.sort()) {
      if ((this.#entries.get(key)?.at(-1)?.seq ?? -1) > this.#lastMarker) continue;
      records.push({ t: "pri", path: key, s: await priorOf(key) });
    }
    const journaled = records.map((r) => (r as Extract<JournalRecord, { t: "pri" }>).path);
    await this.#closeScan(scan, records);
    await this.#stampAfter(changed);
    return { changed, journaled, limitHit: now.limitHit };
  }

  /** Appends `records` and the end of the scan record at position `scan`, durably, then removes its listing (unless another open scan has the same). */
  async #closeScan(scan: number, records: JournalRecord[]): Promise<void> {
    const list = this.#openScans.get(scan);
    this.#scanning.delete(scan);
    this.#scanCalls.delete(scan);
    await this.#append([...records, { t: "scanned", r: scan }], "all");
    if (list !== undefined && ![...this.#openScans.values()].includes(list)) this.#listings.remove(list);
  }

  /** Finds what the command of the open scan record `scan` (a crash interrupted it) changed, and journals it as far as it can be. */
  async #recoverCommand(scan: { seq: number; list: string }): Promise<InterruptedCommandReport> {
    const call = this.#scanCalls.get(scan.seq);
    const calls = call === undefined ? [] : [call];
    let listed: [string, FileStamp][];
    try {
      listed = JSON.parse((await this.#listings.get(scan.list)).toString("utf8")) as [string, FileStamp][];
    } catch (error) {
      // Without the listing nothing can be told apart: no file is journaled (a revert would delete them all).
      await this.#closeScan(scan.seq, []);
      return { created: [], notRestorable: [], notice: `the scan before it cannot be read (${(error as Error).message}): what it changed is not known`, calls };
    }
    const before = new Map(listed.map(([key, stamp]) => [key, { stamp }]));
    const limits = this.#scanLimits === false ? {} : this.#scanLimits;
    const lost: StoredState = { k: "unsupported", why: "changed by a command a crash interrupted: its content before the command was not kept" };
    const { journaled, limitHit } = await this.#journalChanges(scan.seq, before, limits, async (key) => (before.has(key) ? lost : { k: "missing" }));
    const notice = limitHit === null ? null : `${limitHit} now, over the scan's limit: the files the command created are not known`;
    // The files it changed that the journal knew already (the agent wrote them since the last checkpoint) are restored as usual.
    return { created: journaled.filter((key) => !before.has(key)), notRestorable: journaled.filter((key) => before.has(key)), notice, calls };
  }

  /**
   * What a restore to `target` would do now (nothing is changed): the files
   * it would restore, skip and leave alone as conflicts.
   */
  preview(target: RestoreTarget, options: { force?: boolean } = {}): Promise<FileRestoreReport> {
    return this.#run(async () => (await this.#plan(target, options.force ?? false)).report);
  }

  /** The files the agent changed after checkpoint `id` of the current conversation and before the next one. */
  async changedAt(id: number): Promise<string[]> {
    return (await this.changedAtEach([id])).get(id) ?? [];
  }

  /**
   * {@link changedAt} for each of `ids` at once (a checkpoint without a
   * marker on the current conversation maps to no files). Only changes the
   * current conversation made count: not those of a branch a revert left,
   * nor a restore's own (finished, or aborted with nothing changed). The journal's entries are sorted once and
   * each checkpoint's span is found by binary search, so listing every
   * checkpoint of a long session is not one pass over the journal per
   * checkpoint.
   */
  changedAtEach(ids: readonly number[]): Promise<Map<number, string[]>> {
    return this.#run(async () => {
      const changes: { seq: number; key: string }[] = [];
      // A restore's own entries (the files it restores, or planned to when it was aborted) are no change the agent made.
      const seen = this.#seenBranches();
      for (const [key, entries] of this.#entries) for (const { seq, b } of entries) if (!this.#revs.has(seq) && seq <= (seen.get(b) ?? -1)) changes.push({ seq, key });
      changes.sort((a, b) => a.seq - b.seq);
      const result = new Map<number, string[]>();
      for (const id of ids) {
        const paths = new Set<string>();
        const start = this.#findMarker(id, this.#branch);
        if (start !== null) {
          const end = this.#findMarker(id + 1, this.#branch) ?? Number.POSITIVE_INFINITY;
          for (let i = firstAfter(changes, start); i < changes.length && changes[i]!.seq < end; i++) paths.add(changes[i]!.key);
        }
        result.set(id, [...paths].sort());
      }
      return result;
    });
  }

  /**
   * Records that the context made checkpoint `id` (on the current branch):
   * the changes recorded after it are undone by a revert to it. Marking the
   * newest marked checkpoint again changes nothing, so a checkpoint can be
   * marked when it is announced (the soul marks a step's checkpoint before
   * the model answers, and writes it with the step) and again when it is
   * written. Not fsynced on its own: the next declared write makes it
   * durable, and without one there is nothing to restore to it. For the
   * soul's `Context` and the soul's loop.
   */
  markCheckpoint(id: number): Promise<void> {
    return this.#run(async () => {
      const newest = this.#markers.last();
      if (newest?.id === id && newest.b === this.#branch) return;
      await this.#append([{ t: "cp", id, b: this.#branch }], "none");
    });
  }

  /**
   * Plans a restore and records it, durably, before anything changes. Call
   * it before the context's step (with the fingerprint of the conversation
   * before it, see {@link recover}), then
   * {@link finishRestore} after it, or {@link abortRestore} when it failed.
   * A clear (`target` null, kind "clear") restores no file. For the soul's `Context`.
   */
  beginRestore(kind: RestoreKind, target: RestoreTarget, before: string, force = false): Promise<PendingRestore> {
    return this.#run(async () => {
      const { entries, report, fork } = kind === "clear" ? { entries: [], report: emptyReport(), fork: null } : await this.#plan(target, force);
      const seq = this.#seq;
      const known = target !== null && "rotation" in target ? this.#rotations.get(target.rotation) : undefined;
      const newBranch = kind === "revert" || kind === "clear" || known === undefined;
      const record: JournalRecord = {
        t: "rev",
        kind,
        from: this.#branch,
        b: known?.branch ?? seq,
        parent: kind === "revert" && newBranch ? this.#branch : null,
        fork: kind === "revert" ? fork : null,
        before,
        files: entries,
      };
      await this.#blobs.sync();
      await this.#append([record], "all");
      return { seq, report };
    });
  }

  /** Restores the files of `pending` (after the context's step, which kept its old log as `rotation`) and returns the report. */
  finishRestore(pending: PendingRestore, rotation: number | null): Promise<FileRestoreReport> {
    return this.#run(async () => {
      const report = pending.report;
      const rev = this.#revs.get(pending.seq)!;
      await this.#applyAll(rev.files, "target", report);
      await this.#append([{ t: "end", r: pending.seq, rotation }], "all");
      return report;
    });
  }

  /** Forgets `pending`: the context's step failed, nothing changed. */
  abortRestore(pending: PendingRestore): Promise<void> {
    return this.#run(async () => {
      await this.#append([{ t: "abort", r: pending.seq }], "all");
    });
  }

  /**
   * Finishes a restore a crash interrupted: completed when the
   * conversation's `fingerprint` differs from the one before the restore
   * (the context's step happened), else rolled back; `rotations` are the
   * context's rotation numbers now. First finds what a command (`Shell`) a
   * crash interrupted changed (see {@link InterruptedCommandReport}). Null
   * when nothing was interrupted. For the soul's `Context`, once, when it
   * reads its log.
   */
  recover(fingerprint: string, rotations: readonly number[]): Promise<FileRecoveryReport | null> {
    return this.#run(async () => {
      let command: InterruptedCommandReport | null = null;
      for (const [seq, list] of [...this.#openScans].sort(([a], [b]) => a - b)) {
        const found = await this.#recoverCommand({ seq, list });
        const calls: CommandToolCall[] = [...(command?.calls ?? []), ...found.calls];
        command = command === null ? found : { created: [...command.created, ...found.created], notRestorable: [...command.notRestorable, ...found.notRestorable], notice: command.notice ?? found.notice, calls };
      }
      if (this.#unfinished === null) return command === null ? null : { outcome: null, files: emptyReport(), command };
      const seq = this.#unfinished;
      const rev = this.#revs.get(seq)!;
      const report = emptyReport();
      if (fingerprint !== rev.before) {
        await this.#applyAll(rev.files, "target", report);
        await this.#append([{ t: "end", r: seq, rotation: rotations.length === 0 ? null : Math.max(...rotations) }], "all");
        return { outcome: "completed", files: report, command };
      }
      // The conversation never moved, and the files are changed only after it: put back any that were.
      await this.#applyAll(rev.files, "prior", report);
      await this.#append([{ t: "abort", r: seq }], "all");
      return { outcome: "rolled-back", files: report, command };
    });
  }

  /** Closes the journal file. */
  close(): Promise<void> {
    return this.#run(async () => {
      await this.#handle?.close();
      this.#handle = null;
      this.#blobs.close();
      this.#listings.close();
      this.#opening = null;
    });
  }

  #run<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#queue.catch(() => undefined).then(async () => {
      this.#opening ??= this.#open();
      await this.#opening;
      return op();
    });
    this.#queue = next;
    return next;
  }

  async #open(): Promise<void> {
    // Private as the files it holds copies of may be: 0700 from its creation (its parents made as needed too).
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    // The journal's folder, its file and its blobs are never reached through a link put in their place (see BlobStore).
    if (!(await lstat(this.#dir)).isDirectory()) throw new Error(`the file journal's folder ${this.#dir} is a symlink: refused`);
    const file = path.join(this.#dir, "journal.jsonl");
    const handle = await open(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600).catch((error: NodeJS.ErrnoException) => {
      throw error.code === "ELOOP" ? new Error(`the file journal ${file} is a symlink: refused`, { cause: error }) : error;
    });
    try {
      await this.#readJournal(handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.#handle = handle;
  }

  /**
   * Reads and indexes the journal open as `handle`, line by line in chunks
   * (never the whole file at once), cutting what a crash left unfinished at
   * its end: a torn last line, and the records of a declared write (or the
   * scan record of a command) that end the journal without all their blobs.
   * Only those trailing records wait before being indexed.
   */
  async #readJournal(handle: FileHandle): Promise<void> {
    this.#seq = 0;
    /** The records since the last one that carries no blob, not yet indexed: {@link #durablePrefix} decides on them at the end. */
    let trailing: { record: JournalRecord; offset: number; seq: number }[] = [];
    const torn = await readJournalLines(handle, ({ text, offset }) => {
      if (text === "") return;
      let record: JournalRecord | null = null;
      try {
        record = JSON.parse(text) as JournalRecord;
      } catch {
        // A damaged line counts as a record (positions stay as written) but says nothing.
      }
      const seq = this.#seq++;
      if (record !== null && blobOf(record) !== undefined) {
        trailing.push({ record, offset, seq });
        return;
      }
      for (const held of trailing) this.#index(held.record, held.seq);
      trailing = [];
      if (record !== null) this.#index(record, seq);
    });
    // A torn last line (a crash during its write) was never synced as a whole: its change never happened.
    if (torn !== null) await handle.truncate(torn);
    const kept = await this.#durablePrefix(trailing.map((t) => t.record));
    for (const held of trailing.slice(0, kept)) this.#index(held.record, held.seq);
    if (kept < trailing.length) {
      await handle.truncate(trailing[kept]!.offset);
      this.#seq = trailing[kept]!.seq;
    }
  }

  /**
   * How many of `records` (the records that end the journal, each with a
   * blob or none: see {@link blobOf}) to keep: all but those from the first
   * whose blob is missing or damaged. Only the last records can be so (the
   * blobs' folder and the records become durable at once, and the change
   * waits for both): a crash stopped it before its change happened.
   */
  async #durablePrefix(records: readonly JournalRecord[]): Promise<number> {
    for (let i = 0; i < records.length; i++) {
      const blob = blobOf(records[i]!);
      if (blob && !(await (records[i]!.t === "scan" ? this.#listings : this.#blobs).has(blob))) return i;
    }
    return records.length;
  }

  /** Appends `records`, indexing them; durable with the blobs stored so far ("all"), alone ("records": the caller syncs the blobs), or not yet ("none"). */
  async #append(records: JournalRecord[], sync: "all" | "records" | "none"): Promise<void> {
    await this.#handle!.write(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    if (sync === "all") await this.#sync();
    else if (sync === "records") await this.#handle!.datasync();
    for (const record of records) this.#index(record, this.#seq++);
  }

  /** Makes the blobs stored and the records appended so far durable (the blobs' names must be synced before records naming them are written). */
  async #sync(): Promise<void> {
    await this.#blobs.sync();
    await this.#handle!.datasync();
  }

  #index(record: JournalRecord, seq: number): void {
    switch (record.t) {
      case "cp":
        this.#markers.push(seq, record.id, record.b);
        this.#lastMarker = seq;
        return;
      case "pri":
        this.#entry(record.path, seq, record.s);
        this.#touches.set(record.path, { prior: record.s, stamp: null });
        return;
      case "aft": {
        const touch = this.#touches.get(record.path);
        if (touch) touch.stamp = record.st;
        return;
      }
      case "rev":
        this.#revs.set(seq, record);
        this.#unfinished = seq;
        this.#lastMarker = seq;
        for (const file of record.files) {
          this.#entry(file.path, seq, file.prior);
          this.#touches.set(file.path, { prior: file.prior, stamp: null });
        }
        return;
      case "end": {
        const rev = this.#revs.get(record.r);
        this.#unfinished = null;
        if (rev === undefined) return;
        if (rev.b === record.r) this.#branches.set(rev.b, { parent: rev.parent, fork: rev.fork });
        this.#branch = rev.b;
        if (record.rotation !== null) this.#rotations.set(record.rotation, { seq: record.r, branch: rev.from });
        return;
      }
      case "abort":
        this.#unfinished = null;
        return;
      case "scan":
        this.#openScans.set(seq, record.list);
        if (isCommandToolCall(record.call)) this.#scanCalls.set(seq, record.call);
        return;
      case "scanned":
        this.#openScans.delete(record.r);
        this.#scanCalls.delete(record.r);
        return;
      case "unscanned":
        this.#unscanned.push({ seq, command: record.command, why: record.why });
    }
  }

  #entry(key: string, seq: number, s: StoredState): void {
    let list = this.#entries.get(key);
    if (list === undefined) this.#entries.set(key, (list = []));
    list.push({ seq, s, b: this.#branch });
  }

  /**
   * The position of checkpoint `id`'s marker as branch `b` sees it at or
   * before `before`: its own, else its parent's at or before the fork (and
   * `before`), and so on up.
   */
  #findMarker(id: number, b: number, before = Number.POSITIVE_INFINITY): number | null {
    const own = this.#markers.find(id, b, before);
    if (own !== null) return own;
    const branch = this.#branches.get(b);
    if (branch?.parent == null || branch.fork === null) return null;
    return this.#findMarker(id, branch.parent, Math.min(before, branch.fork));
  }

  /**
   * The branches the current branch sees, each with the last position of it
   * seen: its own (all of it), then each ancestor's up to the forks between
   * them. Walked once per listing, not once per journal entry.
   */
  #seenBranches(): Map<number, number> {
    const seen = new Map<number, number>();
    let before = Number.POSITIVE_INFINITY;
    for (let current: number | null = this.#branch; current !== null && !seen.has(current); ) {
      seen.set(current, before);
      const branch = this.#branches.get(current);
      if (branch?.parent == null || branch.fork === null) break;
      before = Math.min(before, branch.fork);
      current = branch.parent;
    }
    return seen;
  }

  /** The files to restore to reach `target`: each to its first record from the target's point on. */
  async #plan(target: RestoreTarget, force: boolean): Promise<{ entries: RestoreEntry[]; report: FileRestoreReport; fork: number | null }> {
    const report = emptyReport();
    let from: number | null = null;
    let fork: number | null = null;
    if (target !== null && "checkpoint" in target) {
      fork = this.#findMarker(target.checkpoint, this.#branch);
      if (fork !== null) from = fork + 1;
      else report.notice = `the file journal has no record of checkpoint ${target.checkpoint}; no file was restored`;
    } else if (target !== null) {
      const rotation = this.#rotations.get(target.rotation);
      if (rotation !== undefined) from = rotation.seq;
      else report.notice = `the file journal has no record of rotation ${target.rotation}; no file was restored`;
    }
    const entries: RestoreEntry[] = [];
    if (from === null) return { entries, report, fork };
    const start = from;
    const unscanned = this.#unscanned.filter((u) => u.seq >= start);
    if (unscanned.length > 0) report.commandsNotJournaled = unscanned.map((u) => ({ command: u.command, reason: u.why }));
    const keys = [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1));
    const decisions = await mapLimit(keys, PARALLEL_FILES, ([key, list]) => this.#decide(key, list, from, force));
    for (const decision of decisions) {
      if (decision === null) continue;
      if ("reason" in decision) report.skipped.push(decision);
      else if ("conflict" in decision) report.conflicts.push(decision.conflict);
      else {
        entries.push(decision);
        report.restored.push(decision.path);
      }
    }
    return { entries, report, fork };
  }

  /** What a restore to the point `from` does to `key` (its records `list`): nothing, skip it, a conflict, or restore it. */
  async #decide(key: string, list: readonly PathEntry[], from: number, force: boolean): Promise<RestoreEntry | { path: string; reason: string } | { conflict: string } | null> {
    const first = list.find((e) => e.seq >= from);
    if (first === undefined) return null;
    const wanted = first.s;
    if (wanted.k === "big" || wanted.k === "unsupported") return { path: key, reason: describeUnjournaled(wanted) };
    const current = await this.#read(key);
    if (sameState(current, wanted)) return null;
    const touch = this.#touches.get(key);
    const outside = touch === undefined ? false : touch.stamp === null ? !sameState(current, touch.prior) : !sameStamp(await this.files.stamp(key), touch.stamp);
    if (outside && !force) return { conflict: key };
    const prior = await this.#store(current);
    if (prior.k === "big" || prior.k === "unsupported") return { path: key, reason: `its current state cannot be kept to undo the restore (${describeUnjournaled(prior)})` };
    return { path: key, prior, target: wanted };
  }

  /** Puts each file of `entries` in its `which` state (again when it is there: that clears what an interrupted replace left) and records the stamps after. */
  async #applyAll(entries: readonly RestoreEntry[], which: "target" | "prior", report: FileRestoreReport): Promise<void> {
    const outcomes = await mapLimit(entries, PARALLEL_FILES, async (entry) => {
      try {
        await this.files.write(entry.path, await this.#load(entry[which]));
        return null;
      } catch (error) {
        return `restoring it failed: ${(error as Error).message}`;
      }
    });
    const done: string[] = [];
    entries.forEach((entry, i) => {
      const failure = outcomes[i];
      if (failure === null) {
        done.push(entry.path);
        if (which === "prior" || !report.restored.includes(entry.path)) report.restored.push(entry.path);
      } else {
        report.restored = report.restored.filter((p) => p !== entry.path);
        report.skipped.push({ path: entry.path, reason: failure! });
      }
    });
    await this.#stampAfter(done);
  }

  /** Records the stamps of `keys` now (one that cannot be taken, the workspace gone or a folder unreadable, as missing: anything seen later differs). */
  async #stampAfter(keys: readonly string[]): Promise<void> {
    const stamps = await mapLimit(keys, PARALLEL_FILES, (key) => this.files.stamp(key).catch(() => missingStamp));
    const records: JournalRecord[] = stamps.map((st, i) => ({ t: "aft", path: keys[i]!, st }));
    if (records.length > 0) await this.#append(records, "none");
  }

  /** The state of `key` the oldest scan before a command running now saw (missing when it covers `key` and did not list it), if it can tell. */
  #beforeCommands(key: string): ReadFileState | undefined {
    for (const { contents, covers } of this.#scanning.values()) {
      const seen = contents.get(key);
      if (seen !== undefined) return seen.state;
      if (covers(key)) return { kind: "missing" };
    }
    return undefined;
  }

  #read(key: string): Promise<ReadFileState> {
    return this.files.read(key, this.maxFileBytes);
  }

  async #store(state: ReadFileState): Promise<StoredState> {
    const blobs: Promise<string>[] = [];
    const s = this.#storeLater(state, blobs);
    await Promise.all(blobs);
    return s;
  }

  /** The stored state of `state`; the write of its blob (when new) is added to `blobs`. */
  #storeLater(state: ReadFileState, blobs: Promise<string>[]): StoredState {
    switch (state.kind) {
      case "missing":
        return { k: "missing" };
      case "link":
        return { k: "link", target: state.target };
      case "too-large":
        return { k: "big", size: state.size };
      case "unsupported":
        return { k: "unsupported", why: state.reason };
      case "file": {
        const blob = hashBytes(state.data);
        blobs.push(this.#blobs.put(state.data, blob));
        return { k: "file", blob, mode: state.mode, size: state.data.byteLength };
      }
    }
  }

  async #load(s: StoredState): Promise<FileState> {
    switch (s.k) {
      case "missing":
        return { kind: "missing" };
      case "link":
        return { kind: "link", target: s.target };
      case "file":
        return { kind: "file", data: await this.#blobs.get(s.blob), mode: s.mode };
      default:
        throw new Error(describeUnjournaled(s));
    }
  }
}

function emptyReport(): FileRestoreReport {
  return { restored: [], skipped: [], conflicts: [] };
}

function describeUnjournaled(s: StoredState): string {
  if (s.k === "big") return `not journaled: ${s.size} bytes, over the journal's size cap`;
  if (s.k === "unsupported") return `not journaled: ${s.why}`;
  return "journaled";
}

function sameState(current: ReadFileState, stored: StoredState): boolean {
  switch (current.kind) {
    case "missing":
      return stored.k === "missing";
    case "link":
      return stored.k === "link" && stored.target === current.target;
    case "file":
      return stored.k === "file" && stored.mode === current.mode && stored.size === current.data.byteLength && stored.blob === hashBytes(current.data);
    default:
      return false;
  }
}

/** True for a well-formed tool call of a `scan` record (a damaged one is ignored, not trusted). */
function isCommandToolCall(value: unknown): value is CommandToolCall {
  if (typeof value !== "object" || value === null) return false;
  const call = value as Record<string, unknown>;
  return typeof call.id === "string" && typeof call.name === "string" && typeof call.arguments === "string";
}

/** The blob a record needs (a declared write's prior content, a command's listing), null for one that needs none but belongs to such a write, undefined for every other record. */
function blobOf(record: JournalRecord): string | null | undefined {
  if (record.t === "scan") return record.list;
  if (record.t === "pri") return record.s.k === "file" ? record.s.blob : null;
  return undefined;
}

/** The index of the first of `changes` (sorted by position) after position `seq`. */
function firstAfter(changes: readonly { seq: number }[], seq: number): number {
  let low = 0;
  let high = changes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (changes[mid]!.seq > seq) high = mid;
    else low = mid + 1;
  }
  return low;
}
