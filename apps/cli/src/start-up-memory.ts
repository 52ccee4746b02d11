/**
 * Hands back, while the first prompt waits, the memory the start left in
 * V8's heap. Loading the modules, the SDK and the warm-ups grow the young
 * generation (to about 10 MB, mostly empty once they are done) and leave
 * garbage in the old one, and V8 shrinks neither while the process idles:
 * its memory reducer, which would, is started by a full collection, and the
 * interactive start runs none (only young ones). {@link releaseStartUpMemory} runs one
 * full collection; the memory reducer then collects, compacts and shrinks
 * the heap on its own about 8 s later, in small incremental steps, as it
 * does for any Node process that has had a full collection.
 */
import v8 from "node:v8";
import vm from "node:vm";

type Collect = (options: { type: "major"; execution: "sync" }) => void;

/**
 * Runs one full garbage collection (a pause of 24-40 ms on an idle prompt of
 * this size). V8 gives JavaScript its collector only behind `--expose-gc`
 * (node's own flag, when given, is used as is); else the flag is set for the
 * moment a new context is made, which then has `gc`, and unset again.
 */
export function releaseStartUpMemory(): void {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (exposed) return exposed({ type: "major", execution: "sync" });
  v8.setFlagsFromString("--expose-gc");
  let collect: Collect;
  try {
    collect = vm.runInNewContext("gc") as Collect;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
  collect({ type: "major", execution: "sync" });
}
