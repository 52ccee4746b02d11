/** The agent's tools, confined to one workspace. */
import type { CallableTool } from "@kosong/core";
import type { BackgroundJobs } from "../jobs/background-jobs.js";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
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
}

/** ReadFile, WriteFile, EditFile, Shell, ListDir, Glob and Grep for `workspace` (and TaskOutput, TaskStop with `jobs`). */
export function createAgentTools(workspace: Workspace, options: AgentToolsOptions = {}): CallableTool[] {
  return [
    readFileTool(workspace),
    writeFileTool(workspace),
    editFileTool(workspace),
    shellTool(workspace, options.shellEnv, options.sandbox ?? null, options.jobs ?? null),
    listDirTool(workspace),
    globTool(workspace),
    grepTool(workspace),
    ...(options.jobs ? taskTools(options.jobs) : []),
  ];
}
