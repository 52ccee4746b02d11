/** The agent's tools, confined to one workspace. */
import type { CallableTool } from "@kosong/core";
import type { BackgroundJobs } from "../jobs/background-jobs.js";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
import { readMediaFileTool } from "../media/read-media-file.js";
import { fetchUrlTool, type FetchUrlOptions } from "../web/fetch-url-tool.js";
import { readFileTool } from "./read-file.js";
import { shellTool } from "./shell.js";
import { taskTools } from "./task-tools.js";
import type { Workspace } from "./workspace.js";
import { writeFileTool } from "./write-file.js";

/** Names of the tools that ask for approval before they act. */
export const approvalTools = ["WriteFile", "EditFile", "Shell"] as const;

/** Options of {@link createAgentTools}. */
export interface AgentToolsOptions {
  /** The environment of Shell commands (default: this process's under the default policy of `child-environment.ts`). */
  shellEnv?: Record<string, string>;
  /** The sandbox Shell commands run in (default: none). */
  sandbox?: CommandSandbox | null;
  /** The session's background jobs: Shell's `run_in_background`, TaskOutput and TaskStop (default: none, no such tools). */
  jobs?: BackgroundJobs | null;
  /** Whether the model in use takes images (ReadMediaFile refuses otherwise); default: it does. */
  imageInput?: () => { accepted: boolean; model: string };
  /** FetchURL's allowed hosts, private addresses and limits (default: every host asks, no private address). */
  fetch?: FetchUrlOptions;
}

/** ReadFile, ReadMediaFile, WriteFile, EditFile, Shell, ListDir, Glob, Grep and FetchURL for `workspace` (and TaskOutput, TaskStop with `jobs`). */
export function createAgentTools(workspace: Workspace, options: AgentToolsOptions = {}): CallableTool[] {
  return [
    readFileTool(workspace),
    readMediaFileTool(workspace, options.imageInput ?? (() => ({ accepted: true, model: "" }))),
    writeFileTool(workspace),
    editFileTool(workspace),
    shellTool(workspace, options.shellEnv, options.sandbox ?? null, options.jobs ?? null),
    listDirTool(workspace),
    globTool(workspace),
    grepTool(workspace),
    fetchUrlTool(options.fetch),
    ...(options.jobs ? taskTools(options.jobs) : []),
  ];
}
