/**
 * The JSON settings files a start reads for more than one purpose (Claude
 * Code's `.claude/settings.json` and `settings.local.json` give hooks and
 * permission rules): each read from disk once and parsed at most once per
 * start, and the same result handed to every reader. What each reader makes
 * of a missing, unreadable, oversized or damaged file stays its own.
 */
import { readCappedFile } from "../files/read-capped-file.js";

/** A settings file larger than this is not read (a workspace's file may be hostile). */
export const maxSettingsBytes = 1024 * 1024;

/** {@link maxSettingsBytes} as the readers' notices name it ("1 MiB"). */
export const maxSettingsSize = `${maxSettingsBytes / (1024 * 1024)} MiB`;

/** The parse of a file's text: its value, or the parser's message. */
export type SettingsJson = { ok: true; value: unknown } | { ok: false; message: string };

/** One read of a settings file. */
export type SettingsFileRead =
  /** Not there (or a path through a non-folder). */
  | { kind: "missing" }
  /** There but not readable (a folder, a FIFO or device, no permission, ...): why. */
  | { kind: "unreadable"; message: string }
  /** Read confined to a folder (a workspace's file), and found, as opened, outside it (through a link): not read. */
  | { kind: "outside" }
  /** A regular file larger than {@link maxSettingsBytes}: not read. */
  | { kind: "too-large"; bytes: number }
  /** Read: its size in bytes, and its JSON, parsed on first use. */
  | { kind: "read"; bytes: number; json: () => SettingsJson };

/**
 * How a reader gets a settings file: {@link readSettingsFile} (from disk
 * each time) or a start's {@link SettingsFileReads}. With `within` (a
 * workspace's file) the file, as opened, must lie inside that folder, else
 * the read is `outside`.
 */
export type ReadSettingsFile = (file: string, within?: string) => Promise<SettingsFileRead>;

/** Reads settings files at most once each (by absolute path), for the readers of one start. */
export class SettingsFileReads {
  readonly #reads = new Map<string, Promise<SettingsFileRead>>();

  /** The read of `file` (absolute; confined to `within` when given), from disk the first time it is asked for (bound: pass it as a {@link ReadSettingsFile}). */
  readonly read: ReadSettingsFile = (file, within) => {
    const key = `${within ?? ""}\0${file}`;
    let read = this.#reads.get(key);
    if (read === undefined) {
      read = readSettingsFile(file, within);
      this.#reads.set(key, read);
    }
    return read;
  };
}

/**
 * Reads `file` from disk now (no sharing): what a reader outside a start, or
 * a re-read after an edit, uses. Only a regular file of at most
 * {@link maxSettingsBytes} is read; opening does not wait on a FIFO. With
 * `within`, only a file that lies, as opened, inside that folder.
 */
export async function readSettingsFile(file: string, within?: string): Promise<SettingsFileRead> {
  const read = await readCappedFile(file, maxSettingsBytes, within === undefined ? {} : { within });
  if (read.kind !== "read") return read;
  const { bytes } = read;
  let json: SettingsJson | undefined;
  return { kind: "read", bytes: bytes.length, json: () => (json ??= parse(bytes.toString("utf8"))) };
}

function parse(text: string): SettingsJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
