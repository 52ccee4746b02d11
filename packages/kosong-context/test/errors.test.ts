import { describe, expect, it, vi } from "vitest";
import * as context from "@kosong/context";
import { KosongError } from "@kosong/core";

describe("error classes across duplicate installs", () => {
  it("recognises each error made by another copy of @kosong/context, where instanceof fails", async () => {
    vi.resetModules();
    const other = await import("@kosong/context");
    expect(other.StorageClosedError).not.toBe(context.StorageClosedError);
    const closed = new other.StorageClosedError();
    expect(closed instanceof context.StorageClosedError).toBe(false);
    expect(context.StorageClosedError.isInstance(closed)).toBe(true);
    expect(context.ContextStorageError.isInstance(closed)).toBe(true);
    expect(KosongError.isInstance(closed)).toBe(true);
    expect(context.StorageWriteError.isInstance(closed)).toBe(false);

    const locked = new other.SessionLockedError("/s/context.jsonl", "/s/context.jsonl.lock", { pid: 7, hostname: null }, "process 7");
    expect(context.SessionLockedError.isInstance(locked)).toBe(true);
    expect(locked.owner.pid).toBe(7);
    expect(locked.name).toBe("SessionLockedError");
    expect(context.InvalidOffsetError.isInstance(new other.InvalidOffsetError(3, "not a line start"))).toBe(true);
    expect(context.RotationNotFoundError.isInstance(new other.RotationNotFoundError("/s/context.jsonl", 2))).toBe(true);
    expect(context.InvalidRecordError.isInstance(new other.InvalidRecordError("bad"))).toBe(true);
    expect(context.StorageAlreadyModifiedError.isInstance(new other.StorageAlreadyModifiedError())).toBe(true);
    const open = new other.StorageOpenError("/s/context.jsonl", "it is a directory");
    expect(context.StorageOpenError.isInstance(open)).toBe(true);
    expect(context.StorageWriteError.isInstance(open)).toBe(false);
    expect(open.path).toBe("/s/context.jsonl");
  });
});
