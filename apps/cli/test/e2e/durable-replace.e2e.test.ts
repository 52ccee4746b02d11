/**
 * The small files kosong rewrites in its home (session.json, checkpoint
 * times, the trust file, ...) survive a power loss or kernel crash, not only
 * a killed process: watched with strace on a real `kosong -p` turn, every
 * rename over a file in KOSONG_HOME comes after a sync of the temporary file
 * it renames, and is followed by a sync of the folder it renames into.
 * (Without the first, ext4 without auto_da_alloc, xfs or btrfs can leave an
 * empty file after a crash; without the second, the old file.)
 */
import { execFileSync, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fakeServer = useFakeProviderServer();

/** strace's path, installed with apt-get when missing (CI machines may lack it). */
function ensureStrace(): void {
  const found = () => execFileSync("bash", ["-c", "command -v strace || true"], { encoding: "utf8" }).trim() !== "";
  if (found()) return;
  execFileSync("bash", ["-c", "apt-get install -y strace || (apt-get update && apt-get install -y strace)"], { stdio: "ignore" });
}

/** One traced call: its name and the paths it names (strace -y shows a descriptor's path in <...>). */
interface Call {
  name: string;
  paths: string[];
}

/** The sync and rename calls of an `strace -f -y` log, in the order they started. */
function callsOf(log: string): Call[] {
  const calls: Call[] = [];
  for (const line of log.split("\n")) {
    const match = /^\d+\s+(fsync|fdatasync|rename|renameat|renameat2)\((.*)$/.exec(line);
    if (match === null) continue;
    const args = match[2]!;
    const paths = [...args.matchAll(/<([^>]*)>|"([^"]*)"/g)].map((m) => m[1] ?? m[2]!);
    calls.push({ name: match[1]!, paths });
  }
  return calls;
}

describe("kosong's own files are replaced durably", { timeout: 120_000 }, () => {
  beforeAll(ensureStrace, 300_000);

  it("every rename over a file in KOSONG_HOME follows a sync of the new file and precedes a sync of its folder", async () => {
    const home = await tempDir();
    const kosongHome = path.join(home, ".kosong");
    const log = path.join(home, "strace.log");
    fakeServer.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Done." }] } });
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fakeServer.server.url}/v1` });
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn("strace", ["-f", "-y", "-qq", "-o", log, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", process.execPath, kosongBin, "-p", "hello"], { cwd: home, env, stdio: "ignore" });
      child.on("error", reject);
      child.on("close", resolve);
    });
    expect(code).toBe(0);
    const calls = callsOf(await readFile(log, "utf8"));
    // A rename's source and target are its last two quoted paths (renameat's descriptors come first).
    const renames = calls.flatMap((call, index) => {
      if (!call.name.startsWith("rename")) return [];
      const [from, to] = call.paths.filter((p) => path.isAbsolute(p)).slice(-2);
      return from !== undefined && to !== undefined && to.startsWith(`${kosongHome}/`) ? [{ index, from, to }] : [];
    });
    expect(renames.map((r) => path.basename(r.to))).toContain("session.json");
    const synced = (from: number, to: number, file: string) => calls.slice(from, to).some((call) => call.name.endsWith("sync") && call.paths[0] === file);
    const unsafe = renames.flatMap(({ index, from, to }) => [
      ...(synced(0, index, from) ? [] : [`${path.relative(kosongHome, to)}: renamed over without a sync of ${path.basename(from)} first`]),
      ...(synced(index + 1, calls.length, path.dirname(to)) ? [] : [`${path.relative(kosongHome, to)}: its folder is not synced after the rename`]),
    ]);
    expect(unsafe).toEqual([]);
  });
});
