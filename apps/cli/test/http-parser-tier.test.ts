/**
 * `http-parser-tier.ts`: with V8's WebAssembly tiering budget set, Node's
 * fetch keeps its HTTP parser (llhttp, WebAssembly) on the baseline code
 * over many streamed responses, where without it V8 recompiles the parser
 * with its optimizing compiler (TurboFan). A child Node process streams
 * responses from a real local server and V8 traces each Wasm compile.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const tierModule = fileURLToPath(new URL("../src/http-parser-tier.ts", import.meta.url));

/** Ten responses of fifty SSE chunks each, fetched and read, in a child process (after `keepHttpParserAtBaseline` when `keep`). */
const child = `
import http from "node:http";
import { pathToFileURL } from "node:url";
const [modulePath, keep] = process.argv.slice(1);
if (keep === "keep") await (await import(pathToFileURL(modulePath).href)).keepHttpParserAtBaseline();
const server = http.createServer((request, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  let sent = 0;
  const next = () => (sent++ < 50 ? (response.write("data: " + "x".repeat(200) + "\\n\\n"), setImmediate(next)) : response.end());
  next();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
for (let i = 0; i < 10; i++) for await (const _ of (await fetch("http://127.0.0.1:" + server.address().port + "/")).body);
server.close();
`;

/** The Wasm functions the child's V8 compiled with TurboFan. */
function optimizedCompiles(keep: boolean): number {
  const trace = execFileSync(process.execPath, ["--trace-wasm-compilation-times", "--input-type=module", "-e", child, tierModule, keep ? "keep" : "no"], { encoding: "utf8", timeout: 30_000 });
  return trace.split("\n").filter((line) => /using TurboFan/.test(line)).length;
}

describe("the HTTP parser's tier", () => {
  it("stays baseline over many streamed responses with the budget set, where V8 otherwise optimizes it", () => {
    expect(optimizedCompiles(false)).toBeGreaterThan(0);
    expect(optimizedCompiles(true)).toBe(0);
  });
});
