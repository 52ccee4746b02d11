/**
 * The parameters of the CLI's built-in tools, by tool name: what the build
 * converts to JSON Schemas once (`build/prebuilt-json-schemas.ts`) so that a
 * start does not (see `prebuilt-json-schemas.ts`). Each tool defines itself
 * with `defineBuiltInTool` and the parameters listed here under its name.
 * The soul's own tools (Recall, SendDMail) are not the CLI's: @kosong/soul
 * writes theirs out. Each is a `z.lazy` of its object: zod builds the object
 * at its tool's first call, not when the session's modules load (the
 * sixteen objects cost each start about 4 ms); its JSON Schema is the same.
 */
import type { ToolParameters } from "@kosong/core";
import { skillToolParameters } from "../extensions/skill-tool.js";
import { readMediaFileParameters } from "../media/read-media-file.js";
import { exitPlanModeParameters } from "../plan/plan-mode.js";
import { askUserQuestionSchema } from "../questions/ask-user-question.js";
import { agentToolParameters } from "../subagents/subagents.js";
import { todoListSchema } from "../todo/todo-list.js";
import { fetchUrlParameters } from "../web/fetch-url-tool.js";
import { editFileParameters } from "./edit-file.js";
import { globParameters } from "./glob.js";
import { grepParameters } from "./grep.js";
import { listDirParameters } from "./list-dir.js";
import { readFileParameters } from "./read-file.js";
import { shellParameters } from "./shell.js";
import { taskOutputParameters, taskStopParameters } from "./task-tools.js";
import { writeFileParameters } from "./write-file.js";

/** Each built-in tool's parameters under its name. */
export const builtInToolParameters: Readonly<Record<string, ToolParameters>> = {
  ReadFile: readFileParameters,
  ReadMediaFile: readMediaFileParameters,
  WriteFile: writeFileParameters,
  EditFile: editFileParameters,
  Shell: shellParameters,
  ListDir: listDirParameters,
  Glob: globParameters,
  Grep: grepParameters,
  FetchURL: fetchUrlParameters,
  TaskOutput: taskOutputParameters,
  TaskStop: taskStopParameters,
  SetTodoList: todoListSchema,
  AskUserQuestion: askUserQuestionSchema,
  Agent: agentToolParameters,
  Skill: skillToolParameters,
  ExitPlanMode: exitPlanModeParameters,
};
