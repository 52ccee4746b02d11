import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("resolveSettings", () => {
  it("takes flags over KOSONG_* environment over the config file", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), 'provider = "anthropic"\nmodel = "from-file"\nmax_context_size = 1000\ncompaction = "smart"\n');
    const env = { KOSONG_HOME: home, KOSONG_MODEL: "from-env" };
    const fromEnv = await resolveSettings({}, env);
    expect(fromEnv).toMatchObject({ provider: "anthropic", model: "from-env", maxContextSize: 1000, compaction: "smart", configPath: path.join(home, "config.toml") });
    const fromFlags = await resolveSettings({ model: "from-flag", provider: "openai" }, env);
    expect(fromFlags).toMatchObject({ provider: "openai", model: "from-flag" });
  });

  it("reads config.json when there is no config.toml", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.json"), JSON.stringify({ provider: "kimi", yolo: true, project_context: false }));
    expect(await resolveSettings({}, { KOSONG_HOME: home })).toMatchObject({ provider: "kimi", yolo: true, projectContext: false });
  });

  it("names an unknown key of the config file", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), 'modle = "gpt"\n');
    const error = await resolveSettings({}, { KOSONG_HOME: home }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toContain("unknown key `modle`");
    expect((error as Error).message).toContain("config.toml");
  });

  it("names a key with a wrong value", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), 'max_context_size = "big"\ncompaction = "magic"\n');
    const message = await resolveSettings({}, { KOSONG_HOME: home }).catch((e: Error) => e.message);
    expect(message).toContain("`max_context_size`");
    expect(message).toContain("`compaction`");
  });

  it("reads the image and fetch settings, and names a private-address entry that is neither an IP nor a range", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), 'image_input = false\nfetch_allow_hosts = ["*.example.com"]\nfetch_allow_private = ["127.0.0.1", "10.0.0.0/8"]\nfetch_timeout = 2.5\nfetch_max_bytes = 4096\n');
    expect(await resolveSettings({}, { KOSONG_HOME: home })).toMatchObject({ imageInput: false, fetchAllowHosts: ["*.example.com"], fetchAllowPrivate: ["127.0.0.1", "10.0.0.0/8"], fetchLimits: { timeoutMs: 2500, maxBytes: 4096 } });
    expect(await resolveSettings({}, { KOSONG_HOME: home, KOSONG_IMAGE_INPUT: "1" })).toMatchObject({ imageInput: true });
    await writeFile(path.join(home, "config.toml"), 'fetch_allow_private = ["intranet.local"]\n');
    const message = await resolveSettings({}, { KOSONG_HOME: home }).catch((e: Error) => e.message);
    expect(message).toContain("`fetch_allow_private.0`: an IP address or a CIDR range");
  });

  it("reports a config file that does not parse", async () => {
    const home = await tempDir();
    await writeFile(path.join(home, "config.toml"), "provider = \n");
    await expect(resolveSettings({}, { KOSONG_HOME: home })).rejects.toThrow(/not valid TOML/);
  });

  it("refuses unknown values and non-numeric sizes from flags and environment", async () => {
    const home = await tempDir();
    await expect(resolveSettings({ provider: "gemini" }, { KOSONG_HOME: home })).rejects.toThrow(/unknown value "gemini"/);
    await expect(resolveSettings({ maxContextSize: "12k" }, { KOSONG_HOME: home })).rejects.toThrow(/positive whole number/);
    await expect(resolveSettings({}, { KOSONG_HOME: home, KOSONG_THINKING: "extreme" })).rejects.toThrow(UsageError);
    // An error caused by a variable or the config file names it, not the flag.
    await expect(resolveSettings({}, { KOSONG_HOME: home, KOSONG_THINKING: "extreme" })).rejects.toThrow(/^KOSONG_THINKING \(environment\): unknown value "extreme"/);
    await expect(resolveSettings({}, { KOSONG_HOME: home, KOSONG_MAX_CONTEXT_SIZE: "8k" })).rejects.toThrow(/^KOSONG_MAX_CONTEXT_SIZE \(environment\): expected a positive whole number/);
    await expect(resolveSettings({ maxContextSize: "0" }, { KOSONG_HOME: home, KOSONG_MAX_CONTEXT_SIZE: "8k" })).rejects.toThrow(/^--max-context-size: /);
  });

  it("infers the provider from the key that is set", async () => {
    const home = await tempDir();
    expect((await resolveSettings({}, { KOSONG_HOME: home, ANTHROPIC_API_KEY: "k" })).provider).toBe("anthropic");
    expect((await resolveSettings({}, { KOSONG_HOME: home, ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" })).provider).toBe("openai");
    expect((await resolveSettings({}, { KOSONG_HOME: home })).provider).toBe("openai");
  });
});
