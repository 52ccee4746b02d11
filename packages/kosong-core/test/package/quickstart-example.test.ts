/**
 * The root README's first command, `pnpm example`, runs
 * examples/quickstart.ts against the built package: it must keep working.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseMessage } from "@kosong/core";
import { describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("../../", import.meta.url));
const built = existsSync(`${packageDir}dist/index.js`);

describe.runIf(built)("examples/quickstart.ts (needs dist: pnpm test builds it)", () => {
  it("runs a tool through step and prints the conversation as kosong JSONL", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["examples/quickstart.ts"], { cwd: packageDir });
    expect(stdout).toContain("[tool call_1] -> 391");
    const lines = stdout.split("\n").filter((line) => line.startsWith("{"));
    const messages = lines.map((line) => parseMessage(line));
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(messages[1]!.tool_calls?.[0]?.function.name).toBe("multiply");
    expect(messages[3]!.content).toEqual([{ type: "text", text: "17 × 23 = 391." }]);
  });
});
