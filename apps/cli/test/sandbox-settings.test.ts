/**
 * The sandbox settings (config `sandbox`, `--sandbox`, `KOSONG_SANDBOX`) and
 * the host list of `sandbox.network`: a mode or a table, flags over the
 * environment over the file, a bad mode or host an error naming it.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { resolveSettings } from "../src/config/settings.js";
import { allowedHosts } from "../src/sandbox/allowed-hosts.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

async function settingsWith(config: string, flags: { sandbox?: string } = {}, env: Record<string, string> = {}) {
  const home = await tempDir();
  await writeFile(path.join(home, "config.toml"), config);
  return resolveSettings(flags, { KOSONG_HOME: home, ...env });
}

describe("sandbox settings", () => {
  it("are on, without network, by default", async () => {
    expect((await settingsWith("")).sandbox).toEqual({ mode: "on", network: false });
  });

  it("take a mode, or a table of mode and network, and a flag or KOSONG_SANDBOX over the file's mode", async () => {
    expect((await settingsWith('sandbox = "auto-allow"\n')).sandbox).toEqual({ mode: "auto-allow", network: false });
    const table = '[sandbox]\nmode = "auto-allow"\nnetwork = ["registry.npmjs.org", "*.pypi.org", "127.0.0.1:8080"]\n';
    expect((await settingsWith(table)).sandbox).toEqual({ mode: "auto-allow", network: ["registry.npmjs.org", "*.pypi.org", "127.0.0.1:8080"] });
    expect((await settingsWith(table, {}, { KOSONG_SANDBOX: "off" })).sandbox.mode).toBe("off");
    expect((await settingsWith(table, { sandbox: "on" }, { KOSONG_SANDBOX: "off" })).sandbox).toMatchObject({ mode: "on" });
    expect((await settingsWith("[sandbox]\nnetwork = true\n")).sandbox).toEqual({ mode: "on", network: true });
  });

  it("accept the README's example as it is written", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const example = /```toml\n(\[sandbox\][\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect((await settingsWith(example!)).sandbox).toEqual({ mode: "auto-allow", network: ["registry.npmjs.org", "*.pypi.org"] });
  });

  it("name a wrong mode or host", async () => {
    const bad = await settingsWith('sandbox = "maybe"\n').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as Error).message).toContain("`sandbox`");
    const host = await settingsWith('[sandbox]\nnetwork = ["http://evil/"]\n').catch((e: Error) => e.message);
    expect(host).toContain("sandbox.network.0");
    const env = await settingsWith("", {}, { KOSONG_SANDBOX: "sometimes" }).catch((e: Error) => e.message);
    expect(env).toContain('KOSONG_SANDBOX (environment): unknown value "sometimes"');
  });
});

describe("allowedHosts", () => {
  it("matches a name on any port, a name with its port, and subdomains of a wildcard only", () => {
    const allowed = allowedHosts(["registry.npmjs.org", "127.0.0.1:8080", "*.example.com", "[::1]"]);
    expect(allowed("REGISTRY.npmjs.org", 443)).toBe(true);
    expect(allowed("registry.npmjs.org.", 80)).toBe(true);
    expect(allowed("127.0.0.1", 8080)).toBe(true);
    expect(allowed("127.0.0.1", 8081)).toBe(false);
    expect(allowed("a.b.example.com", 443)).toBe(true);
    expect(allowed("example.com", 443)).toBe(false);
    expect(allowed("evilexample.com", 443)).toBe(false);
    expect(allowed("registry.npmjs.org.evil.com", 443)).toBe(false);
    expect(allowed("[::1]", 3000)).toBe(true);
    expect(allowed("::1", 3000)).toBe(true);
  });
});
