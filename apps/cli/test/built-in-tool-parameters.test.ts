/**
 * `built-in-tool-parameters.ts` lists what each built-in tool really takes:
 * the build converts the listed parameters to the JSON Schema the bundle
 * gives the tool of that name (`build/prebuilt-json-schemas.ts`), so a tool
 * whose own parameters drift from its entry would show the model one
 * schema and validate its calls against another. From the sources (no
 * prebuilt schemas) each tool converts its own parameters: they must give
 * the listed parameters' schema.
 */
import path from "node:path";
import { type CallableTool, SimpleToolset, type Tool } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { builtInJsonSchemas } from "../build/prebuilt-json-schemas.js";
import { skillTool } from "../src/extensions/skill-tool.js";
import { BackgroundJobs } from "../src/jobs/background-jobs.js";
import { PlanMode, planModeToolset } from "../src/plan/plan-mode.js";
import { askUserQuestionTool } from "../src/questions/ask-user-question.js";
import { SetTodoList } from "../src/todo/set-todo-list.js";
import { builtInToolParameters } from "../src/tools/built-in-tool-parameters.js";
import { useTempDirs } from "./temp-dir.js";
import { toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();

describe("the built-in tools' listed parameters", () => {
  it("give each tool's own JSON Schema, for every tool listed", async () => {
    const jobs = new BackgroundJobs({ dir: path.join(await tempDir(), "jobs") });
    const { tools } = await toolHarness(tempDir, { jobs });
    const callables: CallableTool[] = [...tools.values(), SetTodoList, askUserQuestionTool(() => "no user"), skillTool([])];
    const definitions: Tool[] = [...callables.map((tool) => tool.definition), ...planModeToolset(new SimpleToolset([]), new PlanMode(true)).tools];
    const listed = builtInJsonSchemas();
    const own = new Map(definitions.map((definition) => [definition.name, definition.parameters]));
    for (const [name, schema] of own) expect(schema, name).toEqual(listed[name]);
    // The Agent tool needs a whole session's subagents: its parameters are declared beside it (subagents.ts).
    expect([...own.keys(), "Agent"].sort()).toEqual(Object.keys(builtInToolParameters).sort());
    await jobs.closeAll();
  });
});
