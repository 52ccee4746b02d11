/**
 * FetchURL through the built binary (print mode) against the fake provider
 * server and a local web server: a page comes back to the model as
 * markdown when its host is allowed; without that, print mode cannot ask
 * and refuses the host, and no request reaches it; an allow rule for one
 * host does not cover a redirect to another; a loopback address is
 * refused unless the config allows it. The terminal's
 * question per host: test/interactive/fetch-url.test.ts.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();
let web: Server;
let webUrl = "";
const webHits: string[] = [];

beforeAll(async () => {
  web = createServer((req, res) => {
    webHits.push(req.url ?? "");
    if (req.url === "/moved") return void res.writeHead(302, { location: `http://localhost:${new URL(webUrl).port}/notes` }).end();
    res.writeHead(200, { "content-type": "text/html" }).end("<html><body><h2>Release notes</h2><p>Version <strong>2.0</strong> is out.</p><script>alert(1)</script></body></html>");
  });
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => web.close(resolve)));

async function run(config: string, args: string[] = [], page = "/notes") {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  await writeFile(path.join(home, ".kosong", "config.toml"), config);
  webHits.length = 0;
  server.enqueue({ message: callTool("f1", "FetchURL", { url: `${webUrl}${page}` }), usage }, { message: say("Done."), usage });
  const result = await runKosong(["-p", "what is new?", "--model", "gpt-4.1", ...args], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } });
  expect(result.code, result.stderr).toBe(0);
  const messages = server.requests[1]!.body!.messages as { role: string; content: unknown }[];
  return { result, toolResult: JSON.stringify(messages.find((m) => m.role === "tool")!.content) };
}

describe("FetchURL through the built binary", { timeout: 90_000 }, () => {
  it("brings a page of an allowed host back as markdown", async () => {
    const { toolResult } = await run('fetch_allow_private = ["127.0.0.1"]\nfetch_allow_hosts = ["127.0.0.1"]\n');
    expect(toolResult).toContain("## Release notes");
    expect(toolResult).toContain("Version **2.0** is out.");
    expect(toolResult).not.toContain("alert");
    expect(webHits).toEqual(["/notes"]);
  });

  it("asks for a host not allowed: print mode cannot ask, so it is refused and never contacted", async () => {
    const { result, toolResult } = await run('fetch_allow_private = ["127.0.0.1"]\n');
    expect(result.stderr).toMatch(/tool call refused without --yolo .*FetchURL: Fetch http:\/\/127\.0\.0\.1:\d+\/notes \(host 127\.0\.0\.1:\d+\)/);
    expect(toolResult).toContain("refused in print mode");
    expect(webHits).toEqual([]);
  });

  it("an allow rule for the first host does not cover a redirect to another: that host is asked about (refused in print mode) and never contacted", async () => {
    const { result, toolResult } = await run('fetch_allow_private = ["127.0.0.1"]\n[permissions]\nallow = ["FetchURL(domain:127.0.0.1)"]\n', [], "/moved");
    expect(result.stderr).toMatch(/tool call refused without --yolo .*\(host localhost:\d+\)/);
    expect(toolResult).toContain("refused in print mode");
    expect(webHits).toEqual(["/moved"]);
  });

  it("refuses a loopback address unless the config allows it, even with --yolo", async () => {
    const { toolResult } = await run("", ["--yolo"]);
    expect(toolResult).toContain("Refused: 127.0.0.1 is a loopback address (allow it with fetch_allow_private in the config).");
    expect(webHits).toEqual([]);
  });

});
