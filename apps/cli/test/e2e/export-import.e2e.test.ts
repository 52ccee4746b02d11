/**
 * `kosong export` (md, html, jsonl) and `kosong import`, through the built
 * binary on a session the fake OpenAI server made (thinking, a tool call,
 * hostile markup, a secret the user pasted): each export imports back to
 * the same conversation, no secret of the environment is written, and the
 * HTML page opens in headless Chromium and shows the conversation.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const usage = { input_other: 50, output: 5, input_cache_read: 0, input_cache_creation: 0 };
const secret = "ghp_exportsecret0123456789";
const hostile = "<script>document.title='pwned'</script><img src=x onerror=alert(1)> & more";

const chromium = ["chromium", "chromium-browser"].map((name) => execFileSync("bash", ["-c", `command -v ${name} || true`], { encoding: "utf8" }).trim()).find(Boolean) ?? "";

async function makeSession() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "notes.txt"), "the notes say 42\n");
  const env = { OPENAI_API_KEY: "sk-test-exportkey-123", OPENAI_BASE_URL: `${fake.server.url}/v1`, GITHUB_TOKEN: secret };
  const think: Message = {
    role: "assistant",
    content: [{ type: "think", think: "Let me read the notes first.", encrypted: null }],
    tool_calls: [{ type: "function", id: "c1", function: { name: "ReadFile", arguments: JSON.stringify({ path: "notes.txt" }) } }],
  };
  fake.server.enqueue({ message: think, usage }, { message: { role: "assistant", content: [{ type: "text", text: `The notes say 42. ${hostile}` }] }, usage });
  const run = await runKosong(["-p", `what do the notes say? my token is ${secret}`, "--yolo"], { cwd, home, env });
  expect(run.code, run.stderr).toBe(0);
  const sessions = path.join(home, ".kosong", "sessions");
  const [id] = await readdir(sessions);
  const original = await readFile(path.join(sessions, id!, "context.jsonl"), "utf8");
  const kosong = (args: string[]) => runKosong(args, { cwd, home, env });
  return { home, cwd, id: id!, sessions, original, kosong };
}

describe("kosong export / import", { timeout: 90_000 }, () => {
  it("exports to md, html and jsonl without the environment's secrets, and each imports back to the same conversation", async () => {
    const { cwd, id, sessions, original, kosong } = await makeSession();
    expect(original).toContain(secret);
    expect(original).toContain("Let me read the notes first.");
    const expected = original.split(secret).join("[REDACTED]");
    for (const format of ["md", "html", "jsonl"]) {
      const file = path.join(cwd, `export.${format}`);
      const exported = await kosong(["export", id, "-o", file]);
      expect(exported.code, exported.stderr).toBe(0);
      const text = await readFile(file, "utf8");
      expect(text).not.toContain(secret);
      expect(text).not.toContain("sk-test-exportkey-123");
      expect(Buffer.from(text).toString("base64")).not.toContain(Buffer.from(secret).toString("base64").slice(0, 20));
      const imported = await kosong(["import", file]);
      expect(imported.code, imported.stderr).toBe(0);
      const newId = /as session (\S+)\./.exec(imported.stdout)![1]!;
      expect(newId).not.toBe(id);
      expect(await readFile(path.join(sessions, newId, "context.jsonl"), "utf8")).toBe(expected);
      // The imported session is a real one: it lists with its first prompt.
      expect((await kosong(["sessions"])).stdout).toMatch(new RegExp(`^${newId} .*what do the notes say\\? my token is \\[REDACTED\\]$`, "m"));
    }
    const md = await readFile(path.join(cwd, "export.md"), "utf8");
    expect(md).toContain("<details><summary>Tool call: ReadFile</summary>");
    expect(md).toContain("<details><summary>Thinking</summary>");
    expect(md).not.toContain("<script>");
    expect(md).toContain("&lt;script>");
    // stdout without -o, and the format flag.
    const stdout = await kosong(["export", id, "--format", "jsonl"]);
    expect(stdout.stdout).toBe(expected);
  });

  it("takes a kimi-cli context.jsonl as it is, and refuses bad ids and files with a clear error", async () => {
    const { home, cwd, id, kosong } = await makeSession();
    const kimi = path.join(home, "context.jsonl");
    const lines = ['{"role": "_checkpoint", "id": 0}', '{"role": "user", "content": "hello from kimi-cli"}', '{"role": "assistant", "content": "hi"}', '{"role": "_usage", "token_count": 12}', "not json"];
    await writeFile(kimi, `${lines.join("\n")}\n`);
    const imported = await kosong(["import", kimi]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Imported 2 messages as session \S+ \(1 damaged line\(s\) skipped\)/);
    const newId = /as session (\S+) /.exec(imported.stdout)![1]!;
    // The same records, in the form kosong writes them (messages without spaces, records as kimi-cli writes them).
    const written = ['{"role": "_checkpoint", "id": 0}', '{"role":"user","content":"hello from kimi-cli"}', '{"role":"assistant","content":"hi"}', '{"role": "_usage", "token_count": 12}'];
    expect(await readFile(path.join(home, ".kosong", "sessions", newId, "context.jsonl"), "utf8")).toBe(`${written.join("\n")}\n`);

    for (const bad of [id.slice(0, 10), "../x", "nope"]) {
      const run = await kosong(["export", bad]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/not a valid session id|No session/);
    }
    const empty = path.join(cwd, "empty.md");
    await writeFile(empty, "# just markdown\n");
    const refused = await kosong(["import", empty]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/holds no conversation/);
    // An existing file is never overwritten.
    const again = await kosong(["export", id, "-o", empty]);
    expect(again.code).toBe(1);
    expect(await readFile(empty, "utf8")).toBe("# just markdown\n");
  });

  it.skipIf(!chromium)("the HTML export opens in headless Chromium and shows the conversation, thinking and tool calls collapsed, no script run", async () => {
    const { cwd, id, kosong } = await makeSession();
    const file = path.join(cwd, "page.html");
    expect((await kosong(["export", id, "-o", file])).code).toBe(0);
    const profile = await mkdtemp(path.join(os.tmpdir(), "kosong-chromium-"));
    const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`];
    try {
      const dom = execFileSync(chromium, [...flags, "--dump-dom", `file://${file}`], { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "ignore"] });
      expect(dom).toContain("what do the notes say?");
      expect(dom).toContain("The notes say 42.");
      expect(dom).toContain("&lt;script&gt;document.title='pwned'&lt;/script&gt;");
      expect(dom).toMatch(/<title>kosong session [^<]+<\/title>/);
      expect(dom).not.toMatch(/<script|<img/);
      // Closed by default: no <details open>.
      expect(dom).toMatch(/<details class="thinking"><summary>Thinking<\/summary>/);
      expect(dom).toMatch(/<details class="tool"><summary>Tool call: ReadFile<\/summary>/);
      const shot = path.join(profile, "shot.png");
      execFileSync(chromium, [...flags, "--window-size=900,700", `--screenshot=${shot}`, `file://${file}`], { timeout: 60_000, stdio: "ignore" });
      const png = await readFile(shot);
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      // A page with text and coloured blocks compresses far worse than a blank one.
      expect((await stat(shot)).size).toBeGreaterThan(10_000);
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  });
});
