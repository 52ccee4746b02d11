/**
 * Progress while a session opens, on a recorded terminal stream (timers
 * faked, so no real time passes): nothing within the first second, then a spinner
 * line saying how much of the conversation was read, updated as reading
 * goes on, and cleared once the session is open; an open stopped early
 * (done, or a question to ask first) never shows it.
 */
import pc from "picocolors";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OPEN_PROGRESS_DELAY_MS, startOpenProgress } from "../src/modes/interactive/open-progress.js";
import { ScreenWriter } from "../src/render/screen-writer.js";

/** A terminal stream that keeps what is written; `line()` is what its current line shows (after the last carriage return, escapes removed). */
function recordedTerminal() {
  let written = "";
  const stream = { isTTY: true, columns: 70, rows: 4, write: (text: string) => (written += text) };
  // eslint-disable-next-line no-control-regex
  const line = () => (written.split("\r").at(-1) ?? "").replace(/\u001b(?:\[[0-9;?]*[A-Za-z]|[78])/g, "");
  return { stream, line };
}

const MiB = 1024 * 1024;
const plain = pc.createColors(false);

describe("open progress", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows nothing for the first second, then how much was read, then clears its line", () => {
    const vt = recordedTerminal();
    const progress = startOpenProgress(ScreenWriter.for(vt.stream), plain.dim);
    progress.report(3 * MiB, 200 * MiB);
    vi.advanceTimersByTime(OPEN_PROGRESS_DELAY_MS - 1);
    expect(vt.line()).toBe("");
    vi.advanceTimersByTime(1);
    expect(vt.line()).toMatch(/^. Opening the session: 3\.0 MiB of 200\.0 MiB read…$/);
    progress.report(150 * MiB, 200 * MiB);
    expect(vt.line()).toMatch(/Opening the session: 150\.0 MiB of 200\.0 MiB read…$/);
    progress.report(200 * MiB, 200 * MiB);
    expect(vt.line()).toMatch(/Opening the session: 200\.0 MiB read, getting ready…$/);
    progress.stop();
    expect(vt.line()).toBe("");
    progress.report(200 * MiB, 200 * MiB);
    expect(vt.line()).toBe("");
  });

  it("never shows anything for an open stopped within the second", () => {
    const vt = recordedTerminal();
    const progress = startOpenProgress(ScreenWriter.for(vt.stream), plain.dim);
    progress.report(1, 2);
    progress.stop();
    vi.advanceTimersByTime(10 * OPEN_PROGRESS_DELAY_MS);
    expect(vt.line()).toBe("");
  });
});
