/** The agent's real tools on a real temporary workspace, with a real folder outside it, for tests. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallableTool, ToolReturnValue } from "@kosong/core";
import { approveAll, FileRegistry } from "@kosong/soul";
import { type AgentToolsOptions, createAgentTools } from "../src/tools/agent-tools.js";
import { openWorkspace } from "../src/tools/workspace.js";

/** A workspace (`root`), a folder beside it (`outside`, holding `secret.txt` = "top secret\n") and a way to call the tools. */
export interface ToolHarness {
  root: string;
  outside: string;
  files: FileRegistry;
  tools: Map<string, CallableTool>;
  /** Calls tool `name` with every approval granted (`approveAll`), with `signal` when given. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolReturnValue>;
}

/** Builds a {@link ToolHarness} on two fresh folders of `tempDir`. */
export async function toolHarness(tempDir: () => Promise<string>, options: AgentToolsOptions = {}): Promise<ToolHarness> {
  const root = await tempDir();
  const outside = await tempDir();
  await writeFile(path.join(outside, "secret.txt"), "top secret\n");
  const files = new FileRegistry();
  const tools = new Map(createAgentTools(await openWorkspace(root, files), options).map((tool) => [tool.name, tool]));
  const call = (name: string, args: Record<string, unknown>, signal = new AbortController().signal): Promise<ToolReturnValue> =>
    (tools.get(name) as CallableTool).call(args, { toolCallId: "t1", signal, approval: approveAll });
  return { root, outside, files, tools, call };
}

/** A tool result's output as text. */
export const outputText = (result: ToolReturnValue): string => (typeof result.output === "string" ? result.output : JSON.stringify(result.output));
