/**
 * Reading recorded provider fixtures (`../shared/fixtures/provider-streams`
 * layout): `.sse` wire bodies, `.chunks.jsonl` chunk lists, `.json` bodies,
 * `.nock.json` request/response records, and the response headers recorded
 * in a sibling `_sources.json`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { JsonValue } from "../../message.js";
import { splitSseFrames } from "./wire-format.js";

/** Headers that describe the recorded transfer, not the response: never replayed. */
const transferHeaders = new Set(["content-length", "transfer-encoding", "content-type", "content-encoding", "connection", "keep-alive"]);

/** A fixture file read into what the server serves. */
export type LoadedFixture =
  | { kind: "sse"; frames: string[]; status: number; headers: Record<string, string> }
  | { kind: "chunks"; chunks: JsonValue[]; status: number; headers: Record<string, string> }
  | { kind: "json"; body: string; status: number; headers: Record<string, string> };

function fixtureError(file: string, problem: string): Error {
  return new Error(`fake provider server: fixture ${file}: ${problem}`);
}

function replayableHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof headers !== "object" || headers === null) return out;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (transferHeaders.has(key.toLowerCase()) || key.toLowerCase() === "set-cookie") continue;
    if (typeof value === "string") out[key.toLowerCase()] = value;
    else if (Array.isArray(value) && typeof value[0] === "string") out[key.toLowerCase()] = value[0];
  }
  return out;
}

/** The recorded response (status, headers) of `file` from its folder's `_sources.json`, when there is one. */
function recordedResponse(file: string): { status: number | null; headers: Record<string, string> } {
  const sources = path.join(path.dirname(file), "_sources.json");
  if (!existsSync(sources)) return { status: null, headers: {} };
  const entry = (JSON.parse(readFileSync(sources, "utf8")) as Record<string, { http?: { response?: { status?: unknown; headers?: unknown } } }>)[
    path.basename(file)
  ];
  const response = entry?.http?.response;
  return {
    status: typeof response?.status === "number" ? response.status : null,
    headers: replayableHeaders(response?.headers),
  };
}

function statusFromName(file: string): number | null {
  const match = /(?:^|[-_.])error-(\d{3})(?:\D|$)/.exec(path.basename(file));
  return match ? Number(match[1]) : null;
}

/**
 * Reads `file` into one or more responses (a `.nock.json` yields one per
 * record, in order). `status` overrides the recorded/named status;
 * `recordedHeaders` adds the headers recorded in `_sources.json` (request ids,
 * rate-limit headers).
 */
export function loadFixture(file: string, options: { status?: number; recordedHeaders: boolean }): LoadedFixture[] {
  if (!existsSync(file)) throw fixtureError(file, "no such file");
  const text = readFileSync(file, "utf8");
  const recorded = options.recordedHeaders ? recordedResponse(file) : { status: null, headers: {} };
  const name = path.basename(file);
  if (name.endsWith(".nock.json")) {
    const records = JSON.parse(text) as unknown;
    if (!Array.isArray(records)) throw fixtureError(file, "a .nock.json file must hold an array of records");
    return records.map((record: { status?: unknown; response?: unknown; rawHeaders?: unknown }, i): LoadedFixture => {
      if (typeof record !== "object" || record === null) throw fixtureError(file, `record ${i} is not an object`);
      const body = typeof record.response === "string" ? record.response : JSON.stringify(record.response ?? null);
      const status = typeof record.status === "number" ? record.status : 200;
      return { kind: "json", body, status, headers: options.recordedHeaders ? replayableHeaders(record.rawHeaders) : {} };
    });
  }
  const status = options.status ?? statusFromName(file) ?? recorded.status ?? 200;
  if (name.endsWith(".sse")) return [{ kind: "sse", frames: splitSseFrames(text), status, headers: recorded.headers }];
  if (name.endsWith(".chunks.jsonl")) {
    const chunks: JsonValue[] = [];
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        chunks.push(JSON.parse(line) as JsonValue);
      } catch {
        throw fixtureError(file, `line ${i + 1} is not JSON`);
      }
    });
    return [{ kind: "chunks", chunks, status, headers: recorded.headers }];
  }
  if (name.endsWith(".json")) return [{ kind: "json", body: text.trimEnd(), status, headers: recorded.headers }];
  throw fixtureError(file, "unsupported extension (expected .sse, .chunks.jsonl, .json or .nock.json)");
}
