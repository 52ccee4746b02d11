/**
 * One HTTP(S) GET for FetchURL, with node's http client (no proxy from the
 * environment): every connection's address is checked (the DNS answers by
 * {@link guardedLookup}, an IP literal before connecting, and the socket's
 * peer once connected), redirects are followed by hand within the limit,
 * each new host is approved first, the body is cut at the size cap and the
 * whole exchange at the time cap. FetchURL imports it on its first use:
 * importing `node:http` as a module loads Node's fetch implementation too
 * (~20 ms of the interactive start, for a tool most turns never call).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { AddressPolicy } from "./address-policy.js";
import { FetchError } from "./fetch-error.js";
import type { FetchLimits } from "./fetch-limits.js";
import { guardedLookup, PrivateAddressError } from "./guarded-lookup.js";

/** A response read within the limits. */
export interface FetchedPage {
  /** The URL the last request went to (after redirects). */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
}

/**
 * Gets `url`. `approveHost` is called with each host (`name:port` when the
 * port is not the scheme's) before it is first contacted, the first one
 * included; it returns false to stop there.
 */
export async function guardedGet(url: string, options: { policy: AddressPolicy; limits: Readonly<FetchLimits>; signal: AbortSignal; approveHost: (host: string) => Promise<boolean> }): Promise<FetchedPage> {
  const { policy, limits } = options;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(limits.timeoutMs)]);
  const approved = new Set<string>();
  let current = parseHttpUrl(url);
  for (let redirects = 0; ; redirects++) {
    refuseLiteral(current, policy);
    if (!approved.has(current.host)) {
      if (!(await options.approveHost(current.host))) throw new FetchError(`Fetching from ${current.host} was not approved.`);
      approved.add(current.host);
    }
    const response = await send(current, policy, signal, limits.timeoutMs);
    const location = response.headers.location;
    if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      if (redirects >= limits.maxRedirects) throw new FetchError(`Too many redirects: stopped after ${limits.maxRedirects} (the last one to ${location.slice(0, 200)}).`);
      current = parseHttpUrl(location, current);
      continue;
    }
    const { body, truncated } = await readCapped(response, limits.maxBytes, signal);
    return { url: current.toString(), status: response.statusCode ?? 0, contentType: response.headers["content-type"] ?? "", body, truncated };
  }
}

/** `text` (resolved against `base`, a redirect's location) as an http(s) URL, or a {@link FetchError}. */
function parseHttpUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchError(`Not a URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new FetchError("URLs with a user name or password are not fetched.");
  return url;
}

/** An IP in the URL is checked before anyone is asked or anything connects (no DNS lookup happens for it). */
function refuseLiteral(url: URL, policy: AddressPolicy): void {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const refusal = isIP(literal) ? policy.refusal(literal) : null;
  if (refusal) throw new FetchError(`Refused: ${refusal}.`);
}

function send(url: URL, policy: AddressPolicy, signal: AbortSignal, timeoutMs: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
      method: "GET",
      lookup: guardedLookup(policy),
      signal,
      timeout: timeoutMs,
      headers: { "user-agent": "kosong-fetch/1 (+FetchURL)", accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5", "accept-encoding": "gzip, deflate, br" },
    });
    request.on("socket", (socket) => {
      socket.once("connect", () => {
        const refusal = socket.remoteAddress ? policy.refusal(socket.remoteAddress) : "the peer address is unknown";
        if (refusal) request.destroy(new FetchError(`Refused: ${refusal}.`));
      });
    });
    request.on("timeout", () => request.destroy(new FetchError("The server did not answer in time.")));
    request.on("response", resolve);
    request.on("error", (error) => reject(fetchErrorOf(error, signal)));
    request.end();
  });
}

function fetchErrorOf(error: Error, signal: AbortSignal): Error {
  if (error instanceof FetchError) return error;
  if (error instanceof PrivateAddressError) return new FetchError(`Refused: ${error.message}.`);
  if (signal.aborted) return signal.reason instanceof DOMException && signal.reason.name === "TimeoutError" ? new FetchError("The fetch took too long and was stopped.") : (signal.reason as Error);
  return new FetchError(`The request failed: ${error.message}`);
}

async function readCapped(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder = encoding === "gzip" || encoding === "x-gzip" ? createGunzip() : encoding === "deflate" ? createInflate() : encoding === "br" ? createBrotliDecompress() : null;
  const stream = decoder ? response.pipe(decoder) : response;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
      }
    }
  } catch (error) {
    throw fetchErrorOf(error as Error, signal);
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
