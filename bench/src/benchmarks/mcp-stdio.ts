/**
 * Large results from a stdio MCP server (issue 25 item 3): one call of the
 * hand-written server of @kosong/mcp's tests (`raw-server.mjs`, a real
 * child process) returning one text of 2 MB (quick) or 5 MB and 20 MB
 * (full), through `McpServerConnection.callTool`. Baseline, same rounds:
 * the official SDK's `Client` over its own `StdioClientTransport` (same
 * 64 MiB cap), whose read buffer copies everything buffered on every chunk
 * and searches it again, so its time grows with the square of the size.
 * Goal at 20 MB: under a fifth of the baseline.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { McpServerConnection } from "@kosong/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { median, rowFromSamples, timeOnce } from "../measure.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const server = { command: process.execPath, args: [path.join(repoRoot, "packages/kosong-mcp/test/fixtures/raw-server.mjs")] };
const maxMessageBytes = 64 * 1024 * 1024;
const timeout = 600_000;

async function sizeRow(bytes: number, rounds: number, goal?: number): Promise<BenchRow> {
  const ours = new McpServerConnection("raw", server, { callTimeoutMs: timeout, maxMessageBytes });
  await ours.connect();
  const sdk = new Client({ name: "bench", version: "0" });
  await sdk.connect(new StdioClientTransport({ ...server, maxBufferSize: maxMessageBytes }));
  const oursMs: number[] = [];
  const baselineMs: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const sides = [
        async () => oursMs.push(await timeOnce(() => ours.callTool("big", { bytes }))),
        async () => baselineMs.push(await timeOnce(() => sdk.callTool({ name: "big", arguments: { bytes } }, undefined, { timeout }))),
      ];
      for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    }
  } finally {
    await ours.close();
    await sdk.close();
  }
  const mb = bytes / 1_000_000;
  return rowFromSamples(`one ${mb} MB tool result over stdio`, oursMs, "the SDK's Client over its own StdioClientTransport", baselineMs, {
    ...(goal === undefined ? {} : { goal }),
    note: `ours ${(median(oursMs) / mb).toFixed(1)} ms/MB, SDK ${(median(baselineMs) / mb).toFixed(1)} ms/MB`,
  });
}

const benchmark: Benchmark = {
  name: "mcp-stdio",
  async run({ quick }) {
    if (quick) return [await sizeRow(2_000_000, 3)];
    return [await sizeRow(5_000_000, 7), await sizeRow(20_000_000, 3, 0.2)];
  },
};
export default benchmark;
