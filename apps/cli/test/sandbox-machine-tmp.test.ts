/**
 * The machine's /tmp through the sandbox, with the real bwrap: a command
 * still gets a private writable /tmp, but a program (and the files beside
 * it) installed under the machine's /tmp stays runnable when a configured
 * command, its arguments, its working directory or its PATH name it (a
 * Shell command's text, the model's, does not); that entry of /tmp is
 * read-only, and the rest of the machine's /tmp stays hidden.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CommandSandbox } from "../src/sandbox/command-sandbox.js";
import { machineTmpEntries } from "../src/sandbox/machine-tmp.js";
import { ensureBubblewrap } from "./ensure-bubblewrap.js";
import { useTempDirs } from "./temp-dir.js";

const bwrap = ensureBubblewrap();
const inVarTmp = useTempDirs("/var/tmp");
const inTmp = useTempDirs("/tmp");

function run(command: { file: string; args: string[]; env: Record<string, string> }): { status: number | null; output: string } {
  const result = spawnSync(command.file, command.args, { env: command.env, encoding: "utf8" });
  return { status: result.status, output: result.stdout + result.stderr };
}

describe("the machine's /tmp in the sandbox", () => {
  it("runs a program installed under the machine's /tmp (by path, argument or PATH), read-only; other /tmp entries stay hidden and /tmp stays private", async () => {
    const workspace = await inVarTmp();
    const installed = await inTmp("kosong-installed-");
    const other = await inTmp("kosong-other-");
    await mkdir(path.join(installed, "bin"));
    await mkdir(path.join(installed, "lib"));
    await writeFile(path.join(installed, "lib", "data.txt"), "DATA-BESIDE\n");
    await writeFile(path.join(installed, "bin", "tool"), `#!/bin/bash\ncat ${installed}/lib/data.txt\n`);
    await chmod(path.join(installed, "bin", "tool"), 0o755);
    await writeFile(path.join(other, "secret.txt"), "OTHER-TMP\n");
    const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "on", network: false }, []);
    try {
      const env = { PATH: "/usr/bin:/bin" };
      const byPath = run(sandbox.wrap(path.join(installed, "bin", "tool"), [], env));
      expect(byPath.output).toBe("DATA-BESIDE\n");
      const byArgument = run(sandbox.wrap("bash", [path.join(installed, "bin", "tool")], env));
      expect(byArgument.output).toBe("DATA-BESIDE\n");
      const script = `tool; cat ${other}/secret.txt; touch ${installed}/planted; echo private > /tmp/p && cat /tmp/p; echo end`;
      const byPathVariable = run(sandbox.wrapShell(script, { PATH: `${installed}/bin:/usr/bin:/bin` }));
      expect(byPathVariable.output).toContain("DATA-BESIDE");
      expect(byPathVariable.output).not.toContain("OTHER-TMP");
      expect(byPathVariable.output).toMatch(/planted.: Read-only file system/);
      expect(byPathVariable.output).toContain("private\nend");
      expect(existsSync(path.join(installed, "planted"))).toBe(false);
      expect(existsSync("/tmp/p") && (await readFile("/tmp/p", "utf8")) === "private\n").toBe(false);
      // A model's command text names nothing to show: only PATH (the user's) does.
      const unnamed = run(sandbox.wrapShell(`${installed}/bin/tool; cat ${installed}/lib/data.txt`, env));
      expect(unnamed.output).not.toContain("DATA-BESIDE");
    } finally {
      await sandbox.close();
    }
  });

  it("names the entries of /tmp holding paths (after links), never the sandbox's own folders nor /tmp itself", async () => {
    const installed = await inTmp("kosong-installed-");
    const linkHome = await inVarTmp();
    await symlink(path.join(installed), path.join(linkHome, "link"));
    const own = await inTmp("kosong-sandbox-");
    expect(machineTmpEntries([path.join(linkHome, "link", "x"), "/tmp", "relative/tmp", path.join(own, "a"), "/var/tmp/x", "/tmp/../etc/passwd"], [own])).toEqual([installed]);
  });
});
