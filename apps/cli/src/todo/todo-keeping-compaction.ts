/**
 * A compaction that keeps the todo list: when the compacted conversation
 * would lose the list (the SetTodoList call was summarised away), its first
 * message gets the list as a text part that {@link todoListOf} reads.
 */
import type { Compaction } from "@kosong/soul";
import type { CompactionOptions, CompactionResult } from "@kosong/soul/compaction";
import type { Message } from "@kosong/core";
import { sameTodoList, todoCarryText, todoListOf } from "./todo-list.js";

/** Wraps `inner`, carrying the todo list through its compactions. */
export class TodoKeepingCompaction implements Compaction {
  constructor(private readonly inner: Compaction) {}

  get name(): string {
    return this.inner.name;
  }

  async compact(history: readonly Message[], options?: CompactionOptions): Promise<CompactionResult> {
    const result = await this.inner.compact(history, options);
    const before = todoListOf(history);
    if (before === null || sameTodoList(before, todoListOf(result.messages))) return result;
    const [first, ...rest] = result.messages;
    const carry = { type: "text" as const, text: todoCarryText(before) };
    const messages: Message[] = first?.role === "user" ? [{ ...first, content: [...first.content, carry] }, ...rest] : [{ role: "user", content: [carry] }, ...result.messages];
    return { ...result, messages };
  }
}
