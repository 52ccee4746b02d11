import path from "node:path";
import { describe, expect, it } from "vitest";
import { userMessage } from "@kosong/core";
import { JsonlContextFile, JsonlLinearStorage, StorageClosedError } from "@kosong/context";
import { encodeRecord, messageRecord } from "@kosong/context/records";
import { tempDir } from "@kosong/test-support";

describe("await using", () => {
  it("closes a JsonlContextFile at the end of the block: pending appends committed, lock released", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    const record = messageRecord(userMessage("not awaited"));
    let kept: JsonlContextFile;
    let pending: Promise<unknown>;
    {
      await using opened = await JsonlContextFile.open(file);
      kept = opened;
      pending = opened.append([record]);
    }
    expect(kept.closed).toBe(true);
    await expect(pending).resolves.toEqual({ position: 0, end: Buffer.byteLength(`${encodeRecord(record)}\n`) });
    await expect(kept.append([messageRecord(userMessage("late"))])).rejects.toThrow(StorageClosedError);
    const again = await JsonlContextFile.open(file);
    expect((await again.read()).messages).toEqual([userMessage("not awaited")]);
    await again.close();
  });

  it("closes a JsonlLinearStorage at the end of the block, also when the block throws", async () => {
    const file = path.join(await tempDir(), "context.jsonl");
    let kept: JsonlLinearStorage | undefined;
    const failing = async () => {
      await using storage = new JsonlLinearStorage(file);
      kept = storage;
      await storage.restore();
      void storage.appendMessage(userMessage("not awaited"));
      throw new Error("the agent failed");
    };
    await expect(failing()).rejects.toThrow("the agent failed");
    await expect(kept!.appendMessage(userMessage("late"))).rejects.toThrow(StorageClosedError);

    await using again = new JsonlLinearStorage(file);
    await again.restore();
    expect(again.messages).toEqual([userMessage("not awaited")]);
  });
});
