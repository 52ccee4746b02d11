/**
 * A terminal that keeps nothing: a stream of the size of `like` that takes
 * every write and drops it. The first-turn warm-up renders its turn into it
 * (see `InteractiveSession.rehearsalRenderer`), so the code that draws a
 * turn runs before the first real one without showing anything.
 */
import { Writable } from "node:stream";

/** A stream that drops what is written to it, as a terminal of a size. */
export type DiscardingScreen = Writable & { readonly isTTY: true; readonly columns: number; readonly rows: number };

/** A stream that drops what is written to it, reporting the size of `like` (read each time: it follows a resize) as a TTY. */
export function discardingScreen(like: { readonly columns?: number; readonly rows?: number }): DiscardingScreen {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return Object.defineProperties(sink, {
    isTTY: { value: true },
    columns: { get: () => like.columns ?? 80 },
    rows: { get: () => like.rows ?? 24 },
  }) as DiscardingScreen;
}
