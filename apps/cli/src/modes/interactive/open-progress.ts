/**
 * Progress while a session opens: nothing for an open that takes less than
 * a second; after that, a spinner line saying how much of the conversation
 * has been read, updated as it goes, and cleared once the session is open
 * (or before anything else is asked on the terminal).
 */
import type { ScreenWriter } from "../../render/screen-writer.js";
import { formatSize } from "../../sessions/print-sessions.js";

/** How long an open goes without progress shown. */
export const OPEN_PROGRESS_DELAY_MS = 1000;

/** The progress of one open: feed it `report`, end it with `stop`. */
export interface OpenProgress {
  /** Bytes of the conversation read so far, and in all. */
  report(done: number, total: number): void;
  /** Clears the line when it was shown; later reports show nothing. Idempotent. */
  stop(): void;
}

/** Starts the clock of an open whose progress `writer` shows (dimmed by `dim`) once it has taken {@link OPEN_PROGRESS_DELAY_MS}. */
export function startOpenProgress(writer: ScreenWriter, dim: (text: string) => string, delayMs = OPEN_PROGRESS_DELAY_MS): OpenProgress {
  let read: { done: number; total: number } | null = null;
  let state: "waiting" | "shown" | "stopped" = "waiting";
  const text = (): string => {
    if (read === null) return "Opening the session…";
    if (read.done >= read.total) return `Opening the session: ${formatSize(read.total)} read, getting ready…`;
    return `Opening the session: ${formatSize(read.done)} of ${formatSize(read.total)} read…`;
  };
  const timer = setTimeout(() => {
    if (state !== "waiting") return;
    state = "shown";
    writer.startSpinner(text(), dim);
  }, delayMs);
  timer.unref?.();
  return {
    report(done, total) {
      read = { done, total };
      if (state === "shown") writer.setSpinnerText(text());
    },
    stop() {
      clearTimeout(timer);
      if (state === "shown") writer.stopSpinner();
      state = "stopped";
    },
  };
}
