import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MessageParseError, parseMessage, serializeMessage } from "@kosong/core";
import { fixture } from "@kosong/test-support";

const sessionsDir = fixture("kimi-cli-sessions");

interface Line {
  file: string;
  lineNo: number;
  text: string;
}

/** Every non-blank line of every session file, tagged with where it came from. */
function sessionLines(): Line[] {
  const lines: Line[] = [];
  for (const entry of readdirSync(sessionsDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(sessionsDir, entry.name);
    for (const name of readdirSync(dir).sort()) {
      if (!/^(context.*|session)\.jsonl$/.test(name)) continue;
      const rows = readFileSync(path.join(dir, name), "utf8").split("\n");
      rows.forEach((text, i) => {
        if (text.trim() !== "") lines.push({ file: `${entry.name}/${name}`, lineNo: i + 1, text });
      });
    }
  }
  return lines;
}

function roleOf(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { role?: unknown }).role : undefined;
  } catch {
    return undefined;
  }
}

const all = sessionLines();
const messageLines = all.filter((l) => {
  const role = roleOf(l.text);
  return typeof role === "string" && !role.startsWith("_");
});
const damagedLines = all.filter((l) => roleOf(l.text) === undefined);

describe("kimi-cli session fixtures", () => {
  it("contain the message lines this suite depends on", () => {
    expect(messageLines.length).toBeGreaterThan(30);
    expect(messageLines.some((l) => l.text.includes('"function":{"name":"Think"}}'))).toBe(true);
    expect(messageLines.some((l) => l.text.includes('"encrypted":null'))).toBe(true);
    expect(messageLines.some((l) => l.text.includes('"id":null'))).toBe(true);
  });

  it.each(messageLines.map((l) => [`${l.file}:${l.lineNo}`, l] as const))("%s parses and re-serializes byte-identical", (_, line) => {
    const message = parseMessage(line.text);
    expect(serializeMessage(message)).toBe(line.text);
  });

  it("reads a tool call without `arguments` as null and writes it back without the key", () => {
    const line = messageLines.find((l) => l.text.includes('"function":{"name":"Think"}}'))!;
    const message = parseMessage(line.text);
    expect(message.content).toEqual([]);
    expect(message.tool_calls).toEqual([{ type: "function", id: "call_3", function: { name: "Think", arguments: null } }]);
    expect(serializeMessage(message)).toBe(line.text);
  });

  it("rejects the damaged lines of corrupt-lines with a MessageParseError", () => {
    expect(damagedLines.length).toBeGreaterThanOrEqual(3);
    for (const line of damagedLines) expect(() => parseMessage(line.text)).toThrow(MessageParseError);
  });
});
