/**
 * The timeout settings: seconds from flags over KOSONG_* over the config
 * file, 0 for no limit, the defaults (the provider's own for the model, 11
 * minutes for Shell), and a clear usage error for anything else; and the
 * providers built from them carry the limits.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { DEFAULT_SHELL_TIMEOUT_MS, resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("timeout settings", () => {
  it("default: the provider's own model limits, and 11 minutes for Shell", async () => {
    const settings = await resolveSettings({}, { KOSONG_HOME: await tempDir() });
    expect(settings.llmTimeouts).toEqual({});
    expect(settings.shellTimeoutMs).toBe(DEFAULT_SHELL_TIMEOUT_MS);
  });

  it("flags over KOSONG_* over the config file, in seconds; 0 is no limit", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), "first_byte_timeout = 30\nidle_timeout = 0\nshell_timeout = 90\n");
    const fromFile = await resolveSettings({}, { KOSONG_HOME: home });
    expect(fromFile.llmTimeouts).toEqual({ firstByteMs: 30_000, idleMs: null });
    expect(fromFile.shellTimeoutMs).toBe(90_000);
    const env = { KOSONG_HOME: home, KOSONG_IDLE_TIMEOUT: "600", KOSONG_SHELL_TIMEOUT: "0" };
    const fromEnv = await resolveSettings({}, env);
    expect(fromEnv.llmTimeouts).toEqual({ firstByteMs: 30_000, idleMs: 600_000 });
    expect(fromEnv.shellTimeoutMs).toBeNull();
    const fromFlags = await resolveSettings({ firstByteTimeout: "2.5", shellTimeout: "5" }, env);
    expect(fromFlags.llmTimeouts).toEqual({ firstByteMs: 2500, idleMs: 600_000 });
    expect(fromFlags.shellTimeoutMs).toBe(5000);
  });

  it("anything but a non-negative number of seconds is a usage error naming the setting", async () => {
    const home = await tempDir();
    for (const [flags, name] of [
      [{ idleTimeout: "-1" }, "--idle-timeout"],
      [{ firstByteTimeout: "2m" }, "--first-byte-timeout"],
      [{ shellTimeout: "" }, "--shell-timeout"],
    ] as const) {
      const error = await resolveSettings(flags, { KOSONG_HOME: home }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(name);
    }
    await writeFile(path.join(home, "config.toml"), "idle_timeout = -5\n");
    const error = await resolveSettings({}, { KOSONG_HOME: home }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain("idle_timeout");
  });
});
