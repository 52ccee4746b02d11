/**
 * The journal's checkpoint markers: `find` gives the newest marker of a
 * checkpoint id on a branch at or before a position, as a scan from the
 * newest marker back would, over ids reused after reverts and several
 * branches (checked against that scan on a seeded random history).
 */
import { describe, expect, it } from "vitest";
import { CheckpointMarkers } from "../src/checkpoint-markers.js";

describe("CheckpointMarkers.find", () => {
  it("names the newest marker of the id on the branch at or before the position, or null", () => {
    const markers = new CheckpointMarkers();
    markers.push(1, 0, 0);
    markers.push(3, 1, 0);
    markers.push(5, 1, 1);
    markers.push(7, 1, 0);
    expect(markers.find(1, 0, Number.POSITIVE_INFINITY)).toBe(7);
    expect(markers.find(1, 0, 6)).toBe(3);
    expect(markers.find(1, 0, 2)).toBeNull();
    expect(markers.find(1, 1, 10)).toBe(5);
    expect(markers.find(2, 0, 10)).toBeNull();
    expect(markers.find(0, 2, 10)).toBeNull();
  });

  it("agrees with a scan of every marker over thousands of markers with reused ids on three branches", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const markers = new CheckpointMarkers();
    const all: { seq: number; id: number; b: number }[] = [];
    for (let seq = 0; seq < 10_000; seq += 1 + random(2)) {
      const marker = { seq, id: random(200), b: random(3) };
      markers.push(marker.seq, marker.id, marker.b);
      all.push(marker);
    }
    const scan = (id: number, b: number, before: number) => all.findLast((m) => m.seq <= before && m.id === id && m.b === b)?.seq ?? null;
    for (let i = 0; i < 2_000; i++) {
      const [id, b, before] = [random(210), random(4), random(10_500)];
      expect(markers.find(id, b, before)).toBe(scan(id, b, before));
    }
    expect(markers.length).toBe(all.length);
  });
});
