/** The `SetTodoList` tool (kimi-cli's): the model keeps a list of what it is doing, shown to the user (and to wire clients as kimi-cli's `todo` display block). */
import { toolOk } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import { todoListSchema } from "./todo-list.js";

/** `SetTodoList`: replaces the list; the list lives in the conversation (its arguments), see `todoListOf`. */
export const SetTodoList = defineBuiltInTool({
  name: "SetTodoList",
  description:
    "Keep a todo list for a task of several steps: call it with the whole list (each item a title and a status: pending, in_progress or done) when you plan the work and whenever an item's status changes. The user sees it.",
  parameters: todoListSchema,
  async execute({ todos }) {
    const done = todos.filter((t) => t.status === "done").length;
    const result = toolOk({ output: `Todo list updated: ${done} of ${todos.length} done.`, brief: `${done}/${todos.length} done` });
    // kimi-cli's todo display block, which wire clients render.
    return { ...result, display: [...result.display, { type: "todo", items: todos.map(({ title, status }) => ({ title, status })) }] };
  },
});
