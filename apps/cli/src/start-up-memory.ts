/**
 * Hands back, while the first prompt waits, the memory the start left in
 * V8's heap. Loading the modules, the SDK and the warm-ups grow the young
 * generation (to 16 MB, empty once they are done) and leave garbage in the
 * old one, and V8 shrinks neither while the process idles: its memory
 * reducer, which would, is started by a full collection, and the
 * interactive start runs none (only young ones). {@link releaseStartUpMemory}
 * runs V8's memory-reducing full collection at once, as V8 does on a
 * low-memory notification: it collects and compacts the old generation
 * and shrinks the young one to its start size, so an idle prompt holds
 * about 8 MB less from then on rather than only once the memory reducer
 * gets to it about 8 s later (which it still does, in small steps).
 */
import v8 from "node:v8";
import vm from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/**
 * Runs V8's memory-reducing full collection (two full collections in a row,
 * a pause of 25-50 ms on an idle prompt of this size; a regular one, which
 * leaves the young generation at its grown size, took 15-25 ms). V8 gives
 * JavaScript its collector only behind `--expose-gc` (node's own flag, when
 * given, is used as is); else the flag is set for the moment a new context
 * is made, which then has `gc`, and unset again.
 */
export function releaseStartUpMemory(): void {
  const collect = (globalThis as { gc?: Collect }).gc ?? exposedCollector();
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** V8's `gc` from a context made while `--expose-gc` is set (and unset again). */
function exposedCollector(): Collect {
  v8.setFlagsFromString("--expose-gc");
  try {
    return vm.runInNewContext("gc") as Collect;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}
