/**
 * FetchURL against real HTTP servers on this machine: HTML as markdown,
 * JSON and text as they are, the size and time caps, the redirect limit,
 * private addresses refused (an IP, a name resolving to one, a redirect to
 * one) unless allowed, and approval asked once per host.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { SimpleToolset, type CallableTool, type ToolReturnValue } from "@kosong/core";
import { Approval, approveAll, type ToolApproval } from "@kosong/soul";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePermissionRule } from "../src/permissions/permission-rule.js";
import { PermissionRules } from "../src/permissions/permission-rules.js";
import { withPermissionRules } from "../src/permissions/permission-toolset.js";
import { fetchUrlTool, type FetchUrlOptions } from "../src/web/fetch-url-tool.js";

const page = `<!doctype html><html><head><title>Guide</title><style>body{color:red}</style><script>steal()</script></head>
<body><h1>Getting started</h1><p>Read the <a href="/docs">docs</a> first. A <a href="javascript:steal()">script link</a></p><ul><li>one</li><li>two</li></ul><pre><code>npm i kosong</code></pre></body></html>`;

const servers: Server[] = [];
const stalled: ServerResponse[] = [];
let base = "";
let port = 0;

beforeAll(async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const hops = /^\/hop\/(\d+)$/.exec(url.pathname);
    if (hops) {
      const left = Number(hops[1]);
      res.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : "/page" }).end();
    } else if (url.pathname === "/page") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    else if (url.pathname === "/gz") res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(gzipSync("zipped text\n"));
    else if (url.pathname === "/data.json") res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true,"items":[1,2]}');
    else if (url.pathname === "/big") res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(50_000));
    else if (url.pathname === "/binary") res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(10));
    else if (url.pathname === "/missing") res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    else if (url.pathname === "/stall") stalled.push(res);
    else if (url.pathname === "/bad-redirect") res.writeHead(302, { location: "http://[::1/page" }).end();
    else if (url.pathname === "/deep") res.writeHead(200, { "content-type": "text/html" }).end(`<p>top</p>${"<div></span>".repeat(5000)}x`);
    else if (url.pathname === "/links") res.writeHead(200, { "content-type": "text/html" }).end(`${"<a href='/x'>x".repeat(2000)}`);
    else if (url.pathname === "/nested-page") res.writeHead(200, { "content-type": "text/html" }).end(`<!-- <div><div> --><script>"<div>".repeat(9)</script>${"<div><ul><li><p>".repeat(100)}deep text${"</p></li></ul></div>".repeat(100)}<p>after</p>`);
    else if (url.pathname === "/to-metadata") res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    else if (url.pathname === "/to-localhost") res.writeHead(302, { location: `http://localhost:${port}/page` }).end();
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

const local: FetchUrlOptions = { allowPrivate: ["127.0.0.1"] };

function fetchWith(options: FetchUrlOptions, approval: ToolApproval = approveAll) {
  const tool = fetchUrlTool(options) as CallableTool;
  return (url: string): Promise<ToolReturnValue> => tool.call({ url }, { toolCallId: "f1", signal: new AbortController().signal, approval });
}

const text = (result: ToolReturnValue) => (typeof result.output === "string" ? result.output : JSON.stringify(result.output));

describe("FetchURL against local servers", () => {
  it("turns HTML into markdown without scripts or styles, and gives JSON and (gzipped) text as they are", async () => {
    const fetch = fetchWith(local);
    const html = await fetch(`${base}/page`);
    expect(html.is_error).toBe(false);
    expect(text(html)).toContain("# Getting started");
    expect(text(html)).toContain(`Read the [docs](${base}/docs) first. A script link`);
    expect(text(html)).toMatch(/^-\s+one$/m);
    expect(text(html)).toContain("```\nnpm i kosong\n```");
    expect(text(html)).not.toMatch(/steal|color:red/);
    expect(text(await fetch(`${base}/data.json`))).toBe('{"ok":true,"items":[1,2]}');
    expect(text(await fetch(`${base}/gz`))).toBe("zipped text\n");
    expect((await fetch(`${base}/binary`)).message).toMatch(/application\/octet-stream, not text/);
    const missing = await fetch(`${base}/missing`);
    expect([missing.is_error, missing.message, text(missing)]).toEqual([true, `HTTP 404 from ${base}/missing.`, "no such page"]);
  });

  it("cuts the body at the size cap and stops a stalled server at the time cap", async () => {
    const fetch = fetchWith({ ...local, limits: { maxBytes: 1000, timeoutMs: 300 } });
    const big = await fetch(`${base}/big`);
    expect(big.is_error).toBe(false);
    expect(text(big)).toBe("x".repeat(1000));
    expect(big.message).toBe("The body was cut at 1000 bytes.");
    const stall = await fetch(`${base}/stall`);
    expect(stall.is_error).toBe(true);
    expect(stall.message).toMatch(/took too long|did not answer in time/);
  });

  it("refuses a page nesting its HTML thousands of elements deep with an error result (parsing it would block the process), and converts a page nested 200 deep", async () => {
    const fetch = fetchWith(local);
    const deep = await fetch(`${base}/deep`);
    expect(deep.is_error).toBe(true);
    expect(deep.message).toBe(`The page at ${base}/deep nests its HTML more than 256 elements deep; FetchURL does not convert such pages.`);
    const nested = await fetch(`${base}/nested-page`);
    expect(nested.is_error).toBe(false);
    expect(text(nested)).toMatch(/deep text[\s\S]*after$/);
    expect((await fetch(`${base}/links`)).is_error).toBe(false);
  });

  it("follows redirects up to the limit and no further", async () => {
    const fetch = fetchWith({ ...local, limits: { maxRedirects: 3 } });
    const followed = await fetch(`${base}/hop/2`);
    expect(followed.is_error).toBe(false);
    expect(followed.message).toBe(`Redirected to ${base}/page.`);
    expect(text(followed)).toContain("# Getting started");
    const tooMany = await fetch(`${base}/hop/3`);
    expect(tooMany.is_error).toBe(true);
    expect(tooMany.message).toMatch(/^Too many redirects: stopped after 3/);
    const broken = await fetch(`${base}/bad-redirect`);
    expect([broken.is_error, broken.message]).toEqual([true, "Not a URL: http://[::1/page"]);
  });

  it("refuses loopback, link-local and private addresses unless allowed: as an IP, as a name that resolves to one, and after a redirect", async () => {
    const strict = fetchWith({});
    expect((await strict(`${base}/page`)).message).toBe("Refused: 127.0.0.1 is a loopback address (allow it with fetch_allow_private in the config).");
    expect((await strict(`http://localhost:${port}/page`)).message).toMatch(/^Refused: localhost resolves only to refused addresses: 127\.0\.0\.1 is a loopback address/);
    expect((await strict("http://10.1.2.3/")).message).toMatch(/10\.1\.2\.3 is a private address/);
    expect((await strict("http://[::ffff:192.168.0.1]/")).message).toMatch(/192\.168\.0\.1 is a private address/);
    const allowed = fetchWith(local);
    // The cloud metadata address, reached through a redirect from an allowed server.
    expect((await allowed(`${base}/to-metadata`)).message).toMatch(/^Refused: 169\.254\.169\.254 is a linkLocal address/);
    // localhost resolves to 127.0.0.1 (allowed) and ::1 (not): the connection goes to the allowed one.
    expect(text(await allowed(`${base}/to-localhost`))).toContain("# Getting started");
    expect((await allowed("file:///etc/passwd")).message).toBe("Only http and https URLs can be fetched, not file:");
  });

  it("asks approval once per host: approved for the session it is not asked again, a new host (also after a redirect) is asked, a rejection stops the fetch", async () => {
    const approval = new Approval();
    const asked: string[] = [];
    approval.subscribe((event) => {
      if (event.type !== "ApprovalRequest") return;
      asked.push(event.payload.action);
      queueMicrotask(() => approval.respond(event.payload.id, event.payload.action === `FetchURL:127.0.0.1:${port}` ? "approve_for_session" : "reject", "not that one"));
    });
    const fetch = fetchWith(local, approval.forCall("f1", "FetchURL"));
    expect((await fetch(`${base}/page`)).is_error).toBe(false);
    expect((await fetch(`${base}/data.json`)).is_error).toBe(false);
    expect(asked).toEqual([`FetchURL:127.0.0.1:${port}`]);
    const redirected = await fetch(`${base}/to-localhost`);
    expect(asked).toEqual([`FetchURL:127.0.0.1:${port}`, `FetchURL:localhost:${port}`]);
    expect(redirected.is_error).toBe(true);
    expect(JSON.stringify(redirected)).toContain("not that one");
    // An IP that is refused anyway is refused before anyone is asked.
    expect((await fetch("http://10.0.0.1/")).message).toMatch(/^Refused: 10\.0\.0\.1 is a private address/);
    expect(asked).toHaveLength(2);
    // A host on fetch_allow_hosts is fetched without asking.
    const listed = fetchWith({ ...local, allowHosts: ["localhost"] }, approval.forCall("f2", "FetchURL"));
    expect((await listed(`http://localhost:${port}/page`)).is_error).toBe(false);
    expect(asked).toHaveLength(2);
  });

  it("follows the permission rules for each host, a redirect's too: FetchURL(domain:...) allows and denies by host", async () => {
    const user = { level: "user" as const, file: "config.toml" };
    const rules = new PermissionRules([{ ...parsePermissionRule("WebFetch(domain:127.0.0.1)", "allow", "test")!, ...user }, { ...parsePermissionRule("FetchURL(domain:localhost)", "deny", "test")!, ...user }], { workspace: process.cwd(), userFile: "config.toml", projectTrusted: false });
    const asked: string[] = [];
    const approval: ToolApproval = { request: (action) => (asked.push(action), Promise.resolve({ approved: true })) };
    const fetch = fetchWith({ ...local, hostRule: (host) => rules.decide("FetchURL", { url: `http://${host}/` })?.effect ?? null }, approval);
    expect((await fetch(`${base}/page`)).is_error).toBe(false);
    const redirected = await fetch(`${base}/to-localhost`);
    expect(redirected.message).toBe(`Fetching from localhost:${port} is denied by a permission rule.`);
    expect(asked).toEqual([]);
  });

  it("an allow rule for the first host approves that host only: a redirect to a host no rule allows is asked about, through the session's rule-checked toolset", async () => {
    const user = { level: "user" as const, file: "config.toml" };
    const rules = new PermissionRules([{ ...parsePermissionRule("FetchURL(domain:127.0.0.1)", "allow", "test")!, ...user }], { workspace: process.cwd(), userFile: "config.toml", projectTrusted: false });
    const asked: string[] = [];
    const approval: ToolApproval = { request: (action) => (asked.push(action), Promise.resolve({ approved: true as const })) };
    const tool = fetchUrlTool({ ...local, hostRule: (host) => rules.decide("FetchURL", { url: `http://${host}/` })?.effect ?? null });
    const toolset = withPermissionRules(new SimpleToolset([tool]), rules);
    const call = (url: string, id: string) =>
      toolset.handle({ type: "function", id, function: { name: "FetchURL", arguments: JSON.stringify({ url }) } }, { context: { approval } });
    // The allowed host itself is fetched without asking.
    expect((await call(`${base}/page`, "c1")).return_value.is_error).toBe(false);
    expect(asked).toEqual([]);
    // Its redirect to localhost (no rule) is asked about before it is fetched.
    const redirected = await call(`${base}/to-localhost`, "c2");
    expect(asked).toEqual([`FetchURL:localhost:${port}`]);
    expect(redirected.return_value.is_error).toBe(false);
  });
});
