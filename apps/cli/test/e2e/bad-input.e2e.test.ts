/**
 * Small pieces of bad input get a clear error, and harmless ones are
 * accepted: the built binary in print mode against the fake provider
 * server. Config files are UTF-8 (a byte order mark is fine, other bytes are
 * an error naming the file and the offset); `--resume ""` is a usage error;
 * a KOSONG_HOME that cannot be written says so (a read-only folder, and a
 * read-only file system, where Node's mkdir reports ENOENT).
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const run = (args: string[]) => runKosong(args, { cwd, home, env });
  return { home, cwd, env, run, kosongHome: path.join(home, ".kosong") };
}

describe("bad input to the built binary", { timeout: 60_000 }, () => {
  it("says at once that a KOSONG_HOME under /proc cannot be created (Node's recursive mkdir spun there), and names a bad variable", async () => {
    const { run, env, cwd, home } = await setup();
    const refused = await runKosong(["-p", "hi"], { cwd, home, env: { ...env, KOSONG_HOME: "/proc/kosong-home" } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Cannot create /proc/kosong-home/sessions/");
    expect(refused.stderr).toContain("/proc is not writable");
    const bad = await runKosong(["-p", "hi"], { cwd, home, env: { ...env, KOSONG_MAX_CONTEXT_SIZE: "8k" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('KOSONG_MAX_CONTEXT_SIZE (environment): expected a positive whole number of tokens, got "8k"');
    expect((await run(["-p", "hi", "--max-context-size", "8k"])).stderr).toContain("--max-context-size: expected");
  });

  it("rejects a config file that is not UTF-8, naming the file and the byte offset", async () => {
    const { run, kosongHome } = await setup();
    for (const [name, bytes, offset] of [
      ["config.toml", Buffer.concat([Buffer.from('model = "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]), 12],
      ["config.json", Buffer.concat([Buffer.from('{"model": "ok", "x": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), 22],
    ] as const) {
      const file = path.join(kosongHome, name);
      await writeFile(file, bytes);
      const result = await run(["-p", "hello"]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${file} is not valid UTF-8: byte ${offset} (0x${bytes[offset]!.toString(16)})`);
      await rm(file);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("accepts a config file that starts with a UTF-8 byte order mark", async () => {
    const { run, kosongHome } = await setup();
    await writeFile(path.join(kosongHome, "config.json"), '\ufeff{"model": "bom-json-model"}\n');
    server.enqueue({ message: say("Hi."), usage });
    const json = await run(["-p", "hello"]);
    expect(json.code, json.stderr).toBe(0);
    expect(server.requests.at(-1)!.body!.model).toBe("bom-json-model");

    await writeFile(path.join(kosongHome, "config.toml"), '\ufeffmodel = "bom-toml-model"\n');
    server.enqueue({ message: say("Hi."), usage });
    const toml = await run(["-p", "hello"]);
    expect(toml.code, toml.stderr).toBe(0);
    expect(server.requests.at(-1)!.body!.model).toBe("bom-toml-model");
  });

  it("refuses an empty --resume or --resume-file instead of starting a new session", async () => {
    const { run, kosongHome } = await setup();
    for (const args of [["-r", ""], ["--resume", "  "], ["--resume-file", ""]]) {
      const result = await run(["-p", "hello", ...args]);
      expect(result.code, JSON.stringify(args)).toBe(2);
      expect(result.stderr, JSON.stringify(args)).toMatch(/^--resume(-file)?: the (session id|path) is empty/);
    }
    expect(await readdir(kosongHome)).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("says that a read-only KOSONG_HOME is not writable", async () => {
    const { home, cwd, env } = await setup();
    const readOnly = path.join(home, "read-only");
    await mkdir(readOnly);
    await chmod(readOnly, 0o555);
    // root writes to any folder: without the capabilities that let it (still root, so it reads the binary wherever it lies).
    const dacCaps = "-dac_override,-dac_read_search";
    const asUser = process.getuid?.() === 0 ? ["setpriv", `--bounding-set=${dacCaps}`, `--inh-caps=${dacCaps}`, "--"] : [];
    const run = (prefix: string[], kosongHome: string) => {
      const argv = [...prefix, process.execPath, kosongBin, "-p", "hello"];
      return spawnSync(argv[0]!, argv.slice(1), { cwd, env: cleanEnv(home, { ...env, KOSONG_HOME: kosongHome }), encoding: "utf8" });
    };
    for (const kosongHome of [readOnly, path.join(readOnly, "missing")]) {
      const result = run(asUser, kosongHome);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${readOnly} is not writable (EACCES; kosong saves its sessions under KOSONG_HOME (${kosongHome}))`);
    }

    // A read-only file system, mounted in a private mount namespace where that is allowed (root on Linux).
    const mount = ["unshare", "-m", "sh", "-c", `mount -t tmpfs -o ro tmpfs '${readOnly}' && exec "$@"`, "sh"];
    if (spawnSync(mount[0]!, [...mount.slice(1), "true"]).status !== 0) return;
    const result = run(mount, readOnly);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${readOnly} is not writable \\((ENOENT|EROFS); kosong saves its sessions under KOSONG_HOME`));
    expect(server.requests).toHaveLength(0);
  });
});
