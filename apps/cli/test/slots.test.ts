/** The bound on children running at once: at most `size` run, the others wait in order; an abort while waiting gives up the wait. */
import { describe, expect, it } from "vitest";
import { Slots } from "../src/subagents/slots.js";

describe("Slots", () => {
  it("runs at most `size` at once, the rest in the order they came", async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => Promise.withResolvers<void>());
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await gate.promise;
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
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it("an abort while waiting rejects that call and frees its place in the line", async () => {
    const slots = new Slots(1);
    const gate = Promise.withResolvers<void>();
    const first = slots.run(() => gate.promise);
    const controller = new AbortController();
    const waiting = slots.run(async () => "never", controller.signal);
    const third = slots.run(async () => "third");
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    gate.resolve();
    await first;
    expect(await third).toBe("third");
  });
});
