/**
 * Whether the sandbox can run here, and the start-up notice when not: not
 * Linux, no bwrap on the PATH (with how to install it), or a bwrap that
 * cannot start a sandbox (user namespaces off), each named; a working bwrap
 * is found on the PATH.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { probeBubblewrap } from "../src/sandbox/bubblewrap-probe.js";
import { openCommandSandbox } from "../src/sandbox/command-sandbox.js";
import { ensureBubblewrap } from "./ensure-bubblewrap.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("probeBubblewrap", () => {
  it("says there is no sandbox on macOS and Windows", async () => {
    expect(await probeBubblewrap("/usr/bin:/bin", "darwin")).toEqual({ available: false, reason: "kosong has no sandbox for macOS yet" });
    expect(await probeBubblewrap("/usr/bin:/bin", "win32")).toEqual({ available: false, reason: "kosong has no sandbox for Windows yet" });
  });

  it("says how to install bwrap when the PATH has none, and why a bwrap that cannot start a sandbox is not used", async () => {
    const bin = await tempDir();
    const missing = await probeBubblewrap(bin, "linux");
    expect(missing.available).toBe(false);
    expect(!missing.available && missing.reason).toContain("sudo apt-get install bubblewrap");
    await mkdir(path.join(bin, "broken"));
    const fake = path.join(bin, "broken", "bwrap");
    await writeFile(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    await chmod(fake, 0o755);
    const broken = await probeBubblewrap(`relative/dir:${path.join(bin, "broken")}`, "linux");
    expect(broken).toEqual({ available: false, reason: "bubblewrap cannot start a sandbox here (bwrap: No permissions to create new namespace); user namespaces may be disabled (e.g. in a container)" });
  });

  it("finds a working bwrap on the PATH", async () => {
    const bwrap = ensureBubblewrap();
    expect(await probeBubblewrap(`/nonexistent:${path.dirname(bwrap)}`, "linux")).toEqual({ available: true, bwrap });
  });
});

describe("openCommandSandbox", () => {
  it("gives the start-up notice when there is no sandbox, nothing when it is turned off, and a sandbox where bwrap works", async () => {
    const workspace = await tempDir();
    const noBwrap = { workspace, kosongPaths: [], env: { PATH: "/nonexistent" } };
    const missing = await openCommandSandbox({ mode: "auto-allow", network: false }, noBwrap);
    expect(missing.sandbox).toBeNull();
    expect(missing.notice).toMatch(/^Shell commands run without a sandbox: bubblewrap \(bwrap\) is not installed; .*\. They ask for approval as before \(sandbox = "auto-allow" needs the sandbox\)\.$/);
    expect(await openCommandSandbox({ mode: "off", network: false }, noBwrap)).toEqual({ sandbox: null, notice: null });
    const root = await openCommandSandbox({ mode: "on", network: false }, { workspace: "/", kosongPaths: [], env: { PATH: path.dirname(ensureBubblewrap()) } });
    expect(root).toEqual({ sandbox: null, notice: "Shell commands run without a sandbox: the working directory is the root of the file system. They ask for approval as before." });
    const opened = await openCommandSandbox({ mode: "on", network: ["example.com"] }, { workspace, kosongPaths: [], env: { PATH: path.dirname(ensureBubblewrap()) } });
    expect(opened.notice).toBeNull();
    expect(opened.sandbox?.autoAllow).toBe(false);
    expect(opened.sandbox?.describe()).toContain("no network but HTTP(S) through a proxy to example.com");
    await opened.sandbox?.close();
  });
});
