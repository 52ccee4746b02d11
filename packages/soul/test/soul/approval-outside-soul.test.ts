/**
 * A tool that needs approval fails closed outside a soul: run through core's
 * `step()` with no approval channel, `askApproval` refuses and nothing is
 * written (the README's old `approval?.request(...)` pattern wrote the file).
 * A host opts in by passing `toolContext: { approval: approveAll }`, or any
 * `ToolApproval` of its own.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { defineTool, SimpleToolset, step, toolOk, type ToolResult } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { approveAll, askApproval, ToolRejectedError, type ToolApproval } from "@kosong/soul";
import { NO_APPROVAL_CHANNEL_MESSAGE } from "@kosong/soul/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, tempDir } from "./helpers.js";

function writeTool() {
  return defineTool({
    name: "WriteFile",
    description: "Writes a file.",
    parameters: z.object({ path: z.string(), content: z.string() }),
    async execute({ path: file, content }, context) {
      const refused = await askApproval(context, "write file", file);
      if (refused) return refused;
      await writeFile(file, content);
      return toolOk("written");
    },
  });
}

async function runStep(target: string, toolContext?: { approval: ToolApproval }): Promise<ToolResult[]> {
  const provider = new ScriptedChatProvider([call("w1", "WriteFile", { path: target, content: "x" })]);
  const result = await step(provider, "sys", new SimpleToolset([writeTool()]), [], toolContext ? { toolContext } : {});
  return result.toolResults();
}

describe("approval outside a soul", () => {
  it("refuses through step() when no approval channel is given, and writes nothing", async () => {
    const target = path.join(await tempDir(), "out.txt");
    const [result] = await runStep(target);
    expect(result!.return_value.is_error).toBe(true);
    expect(result!.return_value.message).toBe(NO_APPROVAL_CHANNEL_MESSAGE);
    expect(existsSync(target)).toBe(false);
  });

  it("runs when the host opts in with approveAll", async () => {
    const target = path.join(await tempDir(), "out.txt");
    const [result] = await runStep(target, { approval: approveAll });
    expect(result!.return_value.is_error).toBe(false);
    expect(existsSync(target)).toBe(true);
  });

  it("returns the host's rejection when its own approval says no", async () => {
    const target = path.join(await tempDir(), "out.txt");
    const no: ToolApproval = { request: async () => ({ approved: false, feedback: "not there", rejection: new ToolRejectedError("not there") }) };
    const [result] = await runStep(target, { approval: no });
    expect(result!.return_value.is_error).toBe(true);
    expect(result!.return_value.message).toContain("not there");
    expect(existsSync(target)).toBe(false);
  });
});
