/**
 * `lazySchema`: a schema built on its first use, not when its module loads,
 * and the same schema on every later use.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { lazySchema } from "../../src/index.js";

describe("lazySchema", () => {
  it("builds nothing until the first call, then builds once and keeps it", () => {
    let builds = 0;
    const settings = lazySchema(() => {
      builds++;
      return z.object({ name: z.string().min(1) });
    });
    expect(builds).toBe(0);
    const first = settings();
    expect(first.parse({ name: "kosong" })).toEqual({ name: "kosong" });
    expect(settings()).toBe(first);
    expect(builds).toBe(1);
    expect(settings().safeParse({ name: "" }).error?.issues[0]?.message).toBe("Too small: expected string to have >=1 characters");
  });

  it("calls a build that threw again on the next call", () => {
    let calls = 0;
    const flaky = lazySchema(() => {
      if (++calls === 1) throw new Error("not yet");
      return z.string();
    });
    expect(() => flaky()).toThrow("not yet");
    expect(flaky().parse("ok")).toBe("ok");
    expect(calls).toBe(2);
  });
});
