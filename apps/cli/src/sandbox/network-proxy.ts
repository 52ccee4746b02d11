/**
 * The HTTP proxy through which a sandboxed command reaches the hosts of
 * `sandbox.network = [...]`. It listens on a Unix socket (the sandbox has no
 * network of its own; `proxy-bridge.ts` forwards a TCP port inside to it)
 * and serves `CONNECT host:port` (HTTPS and other TLS) and plain HTTP
 * requests with an absolute URL, one request per connection. Any other host
 * is answered with 403 and a line saying how to allow it; the request line
 * and headers are capped at 64 KiB.
 */
import net from "node:net";

/** Largest request head (request line and headers) read, in bytes. */
const maxHeadBytes = 64 * 1024;

/** How long a connection may take to send its request head. */
const headTimeoutMs = 30_000;

/** A running proxy. */
export interface NetworkProxy {
  /** The Unix socket it listens on. */
  socketPath: string;
  close(): Promise<void>;
}

/** Starts the proxy on `socketPath`; `allowed` decides which host and port a request may reach. */
export function startNetworkProxy(socketPath: string, allowed: (host: string, port: number) => boolean): Promise<NetworkProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    readHead(client, (head, rest) => serve(client, head, rest, allowed, sockets));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve({
        socketPath,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Reads until the end of the request head; calls `then` with the head and the bytes after it, or ends the connection (too large, or not sent within {@link headTimeoutMs}). */
function readHead(client: net.Socket, then: (head: string, rest: Buffer) => void): void {
  client.setTimeout(headTimeoutMs, () => client.destroy());
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf("\r\n\r\n");
    if (end === -1) {
      if (buffered.length > maxHeadBytes) {
        client.off("data", onData);
        reply(client, 431, "Request header fields too large");
      }
      return;
    }
    client.off("data", onData);
    client.setTimeout(0);
    client.pause();
    then(buffered.subarray(0, end).toString("latin1"), buffered.subarray(end + 4));
  };
  client.on("data", onData);
}

function serve(client: net.Socket, head: string, rest: Buffer, allowed: (host: string, port: number) => boolean, sockets: Set<net.Socket>): void {
  const [requestLine = "", ...headers] = head.split("\r\n");
  const [method = "", target = "", version = "HTTP/1.1"] = requestLine.split(" ");
  const where = method === "CONNECT" ? authority(target, 443) : absoluteUrl(target);
  if (where === null) return reply(client, 400, "The sandbox's proxy takes CONNECT host:port or an absolute http:// URL");
  const { host, port, path } = { path: "/", ...where };
  if (!allowed(host, port)) return reply(client, 403, `kosong's sandbox does not allow ${host}:${port} (add the host to sandbox.network in the config to allow it)`);
  const upstream = net.connect({ host: host.replace(/^\[(.*)\]$/, "$1"), port });
  sockets.add(upstream);
  upstream.on("close", () => sockets.delete(upstream));
  let connected = false;
  upstream.on("error", () => {
    if (!connected && !client.destroyed) reply(client, 502, `kosong's sandbox proxy could not reach ${host}:${port}`);
    else client.destroy();
  });
  client.on("close", () => upstream.destroy());
  upstream.on("connect", () => {
    connected = true;
    if (method === "CONNECT") client.write(`${version} 200 Connection established\r\n\r\n`);
    else upstream.write(originRequest(method, path, version, headers));
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}

/** `host:port` (port defaulting to `defaultPort`), or null. */
function authority(text: string, defaultPort: number): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:/\s[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1]!, port } : null;
}

function absoluteUrl(target: string): { host: string; port: number; path: string } | null {
  const match = /^http:\/\/([^/?#]+)(.*)$/i.exec(target);
  const where = match ? authority(match[1]!, 80) : null;
  return where && { ...where, path: match![2] || "/" };
}

/** The request as the origin server takes it: path only, `Connection: close`, no proxy headers. */
function originRequest(method: string, target: string, version: string, headers: string[]): string {
  const kept = headers.filter((line) => !/^(proxy-[a-z-]*|connection|keep-alive)\s*:/i.test(line));
  return [`${method} ${target} ${version}`, ...kept, "Connection: close", "", ""].join("\r\n");
}

function reply(client: net.Socket, status: number, message: string): void {
  const body = `${message}\n`;
  client.end(`HTTP/1.1 ${status} ${statusText[status] ?? "Error"}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const statusText: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway" };
