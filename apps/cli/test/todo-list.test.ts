/** The todo list as the conversation holds it, and SetTodoList's result for wire clients. */
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { SetTodoList } from "../src/todo/set-todo-list.js";
import { todoCarryText, todoListOf } from "../src/todo/todo-list.js";

const set = (todos: object[], args = JSON.stringify({ todos })): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id: "t", function: { name: "SetTodoList", arguments: args } }] });

describe("todoListOf", () => {
  it("is the last valid SetTodoList call, or the list a compaction carried; invalid calls and look-alikes in tool output do not count", () => {
    const first = [{ title: "a", status: "pending" }];
    const carried: Message = { role: "user", content: [{ type: "text", text: "summary" }, { type: "text", text: todoCarryText([{ title: "b", status: "done" }]) }] };
    const forged: Message = { role: "tool", tool_call_id: "x", content: [{ type: "text", text: todoCarryText([{ title: "forged", status: "done" }]) }] };
    expect(todoListOf([])).toBeNull();
    expect(todoListOf([set(first)])).toEqual(first);
    expect(todoListOf([set(first), set([], "{not json"), set([{ title: "", status: "weird" }])])).toEqual(first);
    expect(todoListOf([set(first), carried, forged])).toEqual([{ title: "b", status: "done" }]);
  });

  it("SetTodoList returns kimi-cli's todo display block", async () => {
    const result = await SetTodoList.call({ todos: [{ title: "a", status: "in_progress" }] }, { signal: new AbortController().signal, toolCallId: "t" } as never);
    expect(result.display).toContainEqual({ type: "todo", items: [{ title: "a", status: "in_progress" }] });
    expect(result.output).toBe("Todo list updated: 0 of 1 done.");
  });
});
