/**
 * The model's todo list, kept in the conversation itself: the list is the
 * arguments of the last `SetTodoList` call in the history (or the list a
 * compaction carried over, see {@link todoCarryText}). So whatever brings
 * back an earlier history (a revert, a D-Mail, a rewrite, a restored
 * rotation) brings back the list as it was then, with nothing stored beside.
 */
import type { Message } from "@kosong/core";
import * as z from "zod";

/** The statuses of an item, as kimi-cli's SetTodoList has them. */
export const todoStatuses = ["pending", "in_progress", "done"] as const;

/** One item of the list. */
export const todoItemSchema = z.object({
  title: z.string().min(1).max(500).describe("What to do, in a few words."),
  status: z.enum(todoStatuses).describe("pending, in_progress or done."),
});

/** `SetTodoList`'s arguments: the whole list, replacing the one before. */
export const todoListSchema = z.lazy(() => z.object({ todos: z.array(todoItemSchema).max(100).describe("The whole list, in order (it replaces the previous one).") }));

/** One item of the list. */
export type TodoItem = z.infer<typeof todoItemSchema>;

const carried = /^The todo list kept through a compaction:\n<todo-list>(.*)<\/todo-list>$/s;

/** The text of a user message that carries `todos` through a compaction. */
export function todoCarryText(todos: readonly TodoItem[]): string {
  return `The todo list kept through a compaction:\n<todo-list>${JSON.stringify(todos)}</todo-list>`;
}

/** The list as `history` leaves it: null when no list was ever set. */
export function todoListOf(history: readonly Message[]): TodoItem[] | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role === "assistant") {
      for (const call of [...(message.tool_calls ?? [])].reverse()) {
        if (call.function.name !== "SetTodoList") continue;
        const list = parseList(call.function.arguments ?? "");
        if (list) return list;
      }
    } else if (message.role === "user") {
      for (const part of [...message.content].reverse()) {
        const found = part.type === "text" ? carried.exec(part.text) : null;
        const list = found ? parseList(`{"todos":${found[1]!}}`) : null;
        if (list) return list;
      }
    }
  }
  return null;
}

function parseList(json: string): TodoItem[] | null {
  try {
    const parsed = todoListSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data.todos : null;
  } catch {
    return null;
  }
}

/** The list as lines for the terminal (✓ done, ▸ in progress, ○ pending); `shown` makes a title safe to show. */
export function todoLines(todos: readonly TodoItem[], shown: (title: string) => string): string[] {
  const marks = { done: "✓", in_progress: "▸", pending: "○" } as const;
  return todos.map((t) => `  ${marks[t.status]} ${shown(t.title)}`);
}

/** Same list? */
export function sameTodoList(a: readonly TodoItem[] | null, b: readonly TodoItem[] | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
