/**
 * The root entry stays small enough to hold in your head: at most 50 names
 * (values and types), the rest in named subpaths. Counted from the export
 * lists of src/index.ts, and checked against what the module really exports.
 */
import { readFileSync } from "node:fs";
import * as soul from "@kosong/soul";
import * as compaction from "@kosong/soul/compaction";
import * as conversation from "@kosong/soul/conversation";
import * as internal from "@kosong/soul/internal";
import * as hooks from "@kosong/soul/hooks";
import * as recall from "@kosong/soul/recall";
import * as tokens from "@kosong/soul/tokens";
import { describe, expect, it } from "vitest";

const rootSource = readFileSync(new URL("../../src/index.ts", import.meta.url), "utf8");
const rootNames = [...rootSource.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
  m[1]!.split(",").map((name) => name.trim().replace(/^type\s+/, "")).filter(Boolean),
);

describe("the public API of @kosong/soul", () => {
  it("exports at most 50 names from the root, every value among them real", () => {
    expect(rootNames.length).toBeLessThanOrEqual(50);
    expect(new Set(rootNames).size).toBe(rootNames.length);
    for (const name of Object.keys(soul)) expect(rootNames).toContain(name);
    for (const name of ["Soul", "Context", "Approval", "askApproval", "approveAll", "SendDMail", "SoulError", "serializeEvent", "parseEvent"]) {
      expect(soul).toHaveProperty(name);
    }
  });

  const toolResults = new Set(["ToolRejectedError", "ToolTimeoutError"]);
  it("puts every error class of the package under SoulError (ToolRejectedError and ToolTimeoutError are tool results, not thrown errors)", () => {
    const errors = Object.entries(internal).filter(([name, value]) => name.endsWith("Error") && typeof value === "function" && !toolResults.has(name));
    expect(errors.length).toBeGreaterThanOrEqual(10);
    for (const [name, value] of errors) {
      expect([name, (value as { prototype: unknown }).prototype instanceof soul.SoulError || value === soul.SoulError]).toEqual([name, true]);
      expect([name, Object.hasOwn(value as object, "brand")]).toEqual([name, true]);
    }
    const checks = [new soul.SoulBusyError("run"), new soul.CompactionError("x"), new soul.CheckpointNotFoundError(3, [])];
    expect(checks.filter(soul.SoulError.isInstance)).toHaveLength(3);
    expect(checks.filter(soul.CompactionError.isInstance)).toEqual([checks[1]]);
  });

  it("keeps the rest under named subpaths, and everything under ./internal", () => {
    expect(compaction).toHaveProperty("SimpleCompaction");
    expect(compaction).toHaveProperty("defaultCompaction");
    expect(tokens).toHaveProperty("estimateTokens");
    expect(conversation).toHaveProperty("repairConversation");
    expect(recall).toHaveProperty("Recall");
    expect(hooks).toHaveProperty("HookBlockedError");
    expect(soul).not.toHaveProperty("SimpleCompaction");
    expect(soul).not.toHaveProperty("estimateTokens");
    for (const entry of [soul, compaction, tokens, conversation, recall, hooks]) {
      for (const [name, value] of Object.entries(entry)) expect([name, (internal as Record<string, unknown>)[name]]).toEqual([name, value]);
    }
  });
});
