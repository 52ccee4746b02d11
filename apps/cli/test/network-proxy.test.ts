/**
 * The sandbox's HTTP proxy on its Unix socket, with a real origin server on
 * 127.0.0.1: an allowed host is reached by an absolute URL and by CONNECT;
 * any other host, a request it does not understand, an oversized head and
 * an unreachable host each get their status and a line saying why.
 */
import { createServer, type Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedHosts } from "../src/sandbox/allowed-hosts.js";
import { type NetworkProxy, startNetworkProxy } from "../src/sandbox/network-proxy.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
let origin: Server;
let port: number;

beforeAll(async () => {
  origin = createServer((request, response) => response.end(`origin saw ${request.method} ${request.url} host=${request.headers.host} proxy=${request.headers["proxy-authorization"] ?? "none"}\n`));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  port = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => origin.close(() => resolve())));

/** Sends `request` over the proxy's socket (after `then`, more bytes) and reads all it answers. */
function exchange(proxy: NetworkProxy, request: string, then?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.socketPath);
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
      if (then !== undefined && answer.includes("\r\n\r\n") && !answer.includes("origin saw")) socket.write(then);
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(request);
  });
}

async function proxyAllowing(hosts: string[]): Promise<NetworkProxy> {
  return startNetworkProxy(path.join(await tempDir(), "proxy.sock"), allowedHosts(hosts));
}

describe("the sandbox's network proxy", () => {
  it("forwards a plain HTTP request to an allowed host as the origin expects it, without proxy headers", async () => {
    const proxy = await proxyAllowing(["127.0.0.1"]);
    const answer = await exchange(proxy, `GET http://127.0.0.1:${port}/path?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Basic secret\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain(`origin saw GET /path?q=1 host=127.0.0.1:${port} proxy=none`);
    await proxy.close();
  });

  it("tunnels CONNECT to an allowed host", async () => {
    const proxy = await proxyAllowing([`127.0.0.1:${port}`]);
    const answer = await exchange(proxy, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`, `GET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(answer).toContain("origin saw GET /tunnelled");
    await proxy.close();
  });

  it("answers 403 for another host or port, 400 for what it does not take, 431 for a huge head, 502 for a host it cannot reach", async () => {
    const proxy = await proxyAllowing([`127.0.0.1:${port}`, "localhost"]);
    const forbidden = await exchange(proxy, `GET http://127.0.0.1:${port + 1}/ HTTP/1.1\r\n\r\n`);
    expect(forbidden).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(forbidden).toContain(`kosong's sandbox does not allow 127.0.0.1:${port + 1} (add the host to sandbox.network in the config to allow it)`);
    expect(await exchange(proxy, "CONNECT example.com:443 HTTP/1.1\r\n\r\n")).toMatch(/^HTTP\/1\.1 403 /);
    expect(await exchange(proxy, "GET /relative HTTP/1.1\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await exchange(proxy, "GET https://127.0.0.1/ HTTP/1.1\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await exchange(proxy, `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nX: ${"a".repeat(70_000)}`)).toMatch(/^HTTP\/1\.1 431 /);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await exchange(proxy, `CONNECT localhost:${deadPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 502 Bad Gateway[\s\S]*could not reach localhost/);
    await proxy.close();
  });
});
