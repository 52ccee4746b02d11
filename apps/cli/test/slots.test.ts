/** The bound on children running at once: at most `size` run, the others wait in order; an abort while waiting gives up the wait. */
import { describe, expect, it } from "vitest";
import { Slots } from "../src/subagents/slots.js";

/** A promise and its resolve. */
function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("Slots", () => {
  it("runs at most `size` at once, the rest in the order they came", async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, gate);
    const runs = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await g.promise;
        running--;
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it("an abort while waiting rejects that call and frees its place in the line", async () => {
    const slots = new Slots(1);
    const held = gate();
    const first = slots.run(() => held.promise);
    const controller = new AbortController();
    const waiting = slots.run(async () => "never", controller.signal);
    const third = slots.run(async () => "third");
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    held.resolve();
    await first;
    expect(await third).toBe("third");
  });
});
