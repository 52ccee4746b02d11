/**
 * The compaction threshold as a share of the window: `--compaction-threshold`
 * over `KOSONG_COMPACTION_THRESHOLD` over `compaction_threshold` in the
 * config file, as 0.7 or 70%; the soul then compacts at that share (the
 * reserve for the answer cut so that it does not trigger earlier), and
 * anything else is a usage error naming the setting.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compactionTriggers } from "../src/agent/agent-session.js";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("the compaction threshold setting", () => {
  it("flags over KOSONG_* over the config file, as a share or a percentage; none by default", async () => {
    const home = await tempDir();
    expect((await resolveSettings({}, { KOSONG_HOME: home })).compactionThreshold).toBeNull();
    await writeFile(path.join(home, "config.toml"), 'compaction_threshold = "60%"\n');
    expect((await resolveSettings({}, { KOSONG_HOME: home })).compactionThreshold).toBe(0.6);
    expect((await resolveSettings({}, { KOSONG_HOME: home, KOSONG_COMPACTION_THRESHOLD: "0.5" })).compactionThreshold).toBe(0.5);
    expect((await resolveSettings({ compactionThreshold: "90%" }, { KOSONG_HOME: home, KOSONG_COMPACTION_THRESHOLD: "0.5" })).compactionThreshold).toBe(0.9);
  });

  it("anything outside (0, 1] is a usage error naming where it came from", async () => {
    const home = await tempDir();
    for (const value of ["0", "1.5", "150%", "-0.2", "lots", " "]) {
      await expect(resolveSettings({ compactionThreshold: value }, { KOSONG_HOME: home })).rejects.toSatisfy(
        (error: unknown) => error instanceof UsageError && error.message.startsWith("--compaction-threshold: expected a share of the window"),
      );
    }
  });

  it("sets the soul's trigger ratio and keeps the reserve from triggering earlier", () => {
    expect(compactionTriggers(128_000, null)).toEqual({ reservedContextSize: 32_000 });
    expect(compactionTriggers(128_000, 0.9)).toEqual({ reservedContextSize: 12_800, compactionTriggerRatio: 0.9 });
    expect(compactionTriggers(128_000, 0.5)).toEqual({ reservedContextSize: 32_000, compactionTriggerRatio: 0.5 });
  });
});
