/**
 * The wire log on real files: a torn last line another program (or a crash)
 * left is not glued to the next record, which `replay` then reads back.
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { WireLog } from "@kosong/soul/wire";
import { describe, expect, it } from "vitest";
import { tempDir } from "../soul/helpers.js";

async function messagesOf(log: WireLog) {
  const messages = [];
  for await (const message of log.messages()) messages.push(message);
  return messages;
}

describe("WireLog", () => {
  it("starts the next record on a new line after a torn last line, so that record is read back", async () => {
    const file = path.join(await tempDir(), "wire.jsonl");
    const first = new WireLog(file);
    first.append({ type: "TurnBegin", payload: { user_input: "one" } }, "1.1");
    await first.close();
    await appendFile(file, '{"timestamp": 1, "message": {"type": "TurnBegin", "payload": {"user_in');

    const again = new WireLog(file);
    again.append({ type: "TurnBegin", payload: { user_input: "two" } }, "1.1");
    await again.close();
    expect(await messagesOf(again)).toEqual([
      { type: "TurnBegin", payload: { user_input: "one" } },
      { type: "TurnBegin", payload: { user_input: "two" } },
    ]);
    expect((await readFile(file, "utf8")).split("\n").filter(Boolean)).toHaveLength(4);
  });

  it("writes the metadata line first into an empty file and adds nothing to a whole one", async () => {
    const file = path.join(await tempDir(), "wire.jsonl");
    await writeFile(file, "");
    const log = new WireLog(file);
    log.append({ type: "TurnEnd", payload: {} }, "1.1");
    await log.close();
    const text = await readFile(file, "utf8");
    expect(text.split("\n")).toHaveLength(3);
    expect(JSON.parse(text.split("\n")[0]!)).toEqual({ type: "metadata", protocol_version: "1.1" });
  });
});
