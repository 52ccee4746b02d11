/**
 * FetchURL in the interactive mode (in process, on an emulated terminal)
 * against the fake provider server and a local web server: each host is
 * asked once: approved for the session, it is not asked again; a new host
 * is. Print mode: fetch-url.e2e.test.ts.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();
let web: Server;
let webUrl = "";
const webHits: string[] = [];

beforeAll(async () => {
  web = createServer((req, res) => {
    webHits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/html" }).end("<html><body><h2>Release notes</h2><p>Version <strong>2.0</strong> is out.</p><script>alert(1)</script></body></html>");
  });
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => web.close(resolve)));


describe("FetchURL through the interactive mode (in process)", { timeout: 90_000 }, () => {
  it("asks once per host in the terminal: [a] covers that host for the session, another host asks again", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await mkdir(path.join(home, ".kosong"));
    await writeFile(path.join(home, ".kosong", "config.toml"), 'fetch_allow_private = ["127.0.0.1"]\n');
    webHits.length = 0;
    const port = new URL(webUrl).port;
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }), width: 160 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m);
    server.enqueue({ message: callTool("f1", "FetchURL", { url: `${webUrl}/a` }), usage }, { message: say("First read."), usage });
    terminal.line("read a");
    const asked = await terminal.waitFor(/approve\? $/m, { from: "› read a" });
    expect(asked).toContain(`Fetch ${webUrl}/a (host 127.0.0.1:${port})`);
    expect(asked).toContain(`[a] approve every FetchURL request to 127.0.0.1:${port}`);
    terminal.line("a");
    await terminal.waitFor(/First read\.[\s\S]*›\s*$/, { from: "› read a" });

    server.enqueue({ message: callTool("f2", "FetchURL", { url: `${webUrl}/b` }), usage }, { message: say("Second read."), usage });
    terminal.line("read b");
    const second = await terminal.waitFor(/Second read\.[\s\S]*›\s*$/, { from: "› read b" });
    expect(second).not.toContain("approve?");

    server.enqueue({ message: callTool("f3", "FetchURL", { url: `http://localhost:${port}/c` }), usage }, { message: say("Third."), usage });
    terminal.line("read c");
    const other = await terminal.waitFor(/approve\? $/m, { from: "› read c" });
    expect(other).toContain(`[a] approve every FetchURL request to localhost:${port}`);
    terminal.line("n");
    await terminal.waitFor(/rejected[\s\S]*›\s*$/, { from: "› read c" });
    expect(webHits).toEqual(["/a", "/b"]);
  }, 60_000);
});
