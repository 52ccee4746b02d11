/**
 * Session files stay owner-only through the built binary: `--resume-file`
 * on a 0600 kimi-cli file without a system prompt record (kosong prepends
 * one, replacing the file) leaves it 0600, also when kosong runs under
 * umask 000.
 */
import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, fixturesDir, kosongBin, type KosongRun, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fakeServer = useFakeProviderServer();

/** Runs the binary under `umask` (a shell sets it, as a user's login shell would). */
function runUnderUmask(umask: string, args: string[], cwd: string, home: string): Promise<KosongRun> {
  return new Promise((resolve, reject) => {
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fakeServer.server.url}/v1` });
    const child = spawn("sh", ["-c", `umask ${umask} && exec "$0" "$@"`, process.execPath, kosongBin, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("session file modes through the kosong binary", { timeout: 90_000 }, () => {
  for (const umask of ["022", "000"]) {
    it(`--resume-file of a 0600 kimi-cli file that kosong prepends a system prompt to keeps it 0600 (umask ${umask})`, async () => {
      const home = await tempDir();
      const file = path.join(home, "context.jsonl");
      const kimi = await readFile(path.join(fixturesDir, "kimi-cli-sessions/basic/context.jsonl"), "utf8");
      // Without its system prompt record: kosong writes its own before the conversation (a whole-file replacement).
      const withoutPrompt = kimi.split("\n").filter((line) => !line.includes('"_system_prompt"')).join("\n");
      await writeFile(file, withoutPrompt);
      await chmod(file, 0o600);
      fakeServer.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Continuing." }] } });
      const result = await runUnderUmask(umask, ["-p", "go on", "--resume-file", file], home, home);
      expect(result.code, result.stderr).toBe(0);
      const after = await readFile(file, "utf8");
      expect(after.split("\n")[0]).toContain('"_system_prompt"');
      expect(after).toContain("Continuing.");
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(`${file}.lock`).catch(() => null)), "the lock is released").toBeNull();
    });
  }
});
