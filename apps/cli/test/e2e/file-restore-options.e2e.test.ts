/**
 * The file-restore options through the built binary, in print mode against
 * the fake provider server: the model writes a.txt (WriteFile), creates
 * b.txt (Shell), then sends a D-Mail back to checkpoint 0. What the D-Mail's
 * revert puts back depends on `--file-restore` (scan: both; declared: a.txt
 * only; off or --no-file-restore: nothing), on `--file-restore-max-size` (a
 * larger file is not journaled, so not restored; nor replaced by a restore,
 * which could not be undone), and the same from the
 * config file; a bad size is a usage error naming where it came from. A
 * Shell command cut by a crash (the binary SIGKILLed while it runs) is
 * reported when the session is continued.
 */
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const call = (id: string, name: string, args: object) => ({ type: "function" as const, id, function: { name, arguments: JSON.stringify(args) } });

/** Runs one print-mode turn that writes a.txt, creates b.txt by Shell, then sends a D-Mail to checkpoint 0; returns the files after it. */
async function writeThenDMail(flags: string[], config?: string) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "a.txt"), "mine\n");
  if (config !== undefined) {
    await mkdir(path.join(home, ".kosong"));
    await writeFile(path.join(home, ".kosong", "config.toml"), config);
  }
  const messages: Message[] = [
    { role: "assistant", content: [], tool_calls: [call("w1", "WriteFile", { path: "a.txt", content: "by the agent\n" }), call("s1", "Shell", { command: "echo made > b.txt" })] },
    { role: "assistant", content: [], tool_calls: [call("d1", "SendDMail", { message: "undo that", checkpoint_id: 0 })] },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ];
  for (const message of messages) fake.server.enqueue({ message, usage });
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  const run = await runKosong(["-p", "change things", "--yolo", "--dmail", ...flags], { cwd, home, env });
  const read = (name: string) => readFile(path.join(cwd, name), "utf8").catch(() => null);
  return { run, a: await read("a.txt"), b: await read("b.txt") };
}

describe("--file-restore and --file-restore-max-size, the built binary", { timeout: 60_000 }, () => {
  it("restores what each mode journals when a D-Mail reverts the turn", async () => {
    const scan = await writeThenDMail([]);
    expect(scan.run.code, scan.run.stderr).toBe(0);
    expect(fake.server.requests).toHaveLength(3);
    expect(scan).toMatchObject({ a: "mine\n", b: null });
    expect(await writeThenDMail(["--file-restore", "declared"])).toMatchObject({ a: "mine\n", b: "made\n" });
    expect(await writeThenDMail(["--file-restore=off"])).toMatchObject({ a: "by the agent\n", b: "made\n" });
    expect(await writeThenDMail(["--no-file-restore"])).toMatchObject({ a: "by the agent\n", b: "made\n" });
  });

  it("does not journal, so does not restore, a file over the size cap; the config file sets both", async () => {
    // b.txt (5 bytes) is not deleted either: the restore would have to keep its content to be undoable.
    expect(await writeThenDMail(["--file-restore-max-size", "4"])).toMatchObject({ a: "by the agent\n", b: "made\n" });
    expect(await writeThenDMail(["--file-restore-max-size", "1KiB"])).toMatchObject({ a: "mine\n", b: null });
    expect(await writeThenDMail([], 'file_restore = "declared"\nfile_restore_max_size = "4 B"\n')).toMatchObject({ a: "by the agent\n", b: "made\n" });
    // A flag wins over the config file.
    expect(await writeThenDMail(["--file-restore", "scan"], 'file_restore = "off"\n')).toMatchObject({ a: "mine\n", b: null });
  });

  it("refuses a size it cannot read, naming the flag or the config key", async () => {
    const flag = await writeThenDMail(["--file-restore-max-size", "10 parsecs"]);
    expect(flag.run.code).toBe(2);
    expect(flag.run.stderr).toContain('--file-restore-max-size: expected a size in bytes, or with a unit (KiB, MiB, GiB), got "10 parsecs"');
    const config = await writeThenDMail([], 'file_restore_max_size = "lots"\n');
    expect(config.run.code).toBe(2);
    expect(config.run.stderr).toMatch(/file_restore_max_size in .*config\.toml: expected a size/);
    const mode = await writeThenDMail(["--file-restore", "everything"]);
    expect(mode.run.code).toBe(2);
    expect(mode.run.stderr).toContain("everything");
  });
});

describe("a Shell command cut by a crash, the built binary", { timeout: 60_000 }, () => {
  it("is reported when the session is continued: what it created, and what a revert cannot restore", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "a.txt"), "mine\n");
    const command = "echo more >> a.txt; echo new > new.txt; echo $$ > pid; exec sleep 60 </dev/null >/dev/null 2>&1";
    fake.server.enqueue({ message: { role: "assistant", content: [], tool_calls: [call("s1", "Shell", { command })] }, usage });
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
    const killed = await runKosong(["-p", "run it", "--yolo"], {
      cwd,
      home,
      env,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          access(path.join(cwd, "pid")).then(
            () => {
              clearInterval(poll);
              child.kill("SIGKILL");
            },
            () => undefined,
          );
        }, 20);
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    process.kill(Number(await readFile(path.join(cwd, "pid"), "utf8")), "SIGKILL");

    fake.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "ok" }] }, usage });
    const continued = await runKosong(["-p", "go on", "--continue"], { cwd, home, env });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stderr).toContain("kosong: A Shell command was cut by a crash.\n");
    expect(continued.stderr).toContain("kosong: Files it created (a revert deletes them): new.txt, pid\n");
    expect(continued.stderr).toContain("kosong: Files it changed or deleted, which a revert cannot restore (their content before it was not kept): a.txt\n");
  });
});
