/**
 * Structured questions over the wire (kimi-cli's `QuestionRequest`, wire
 * 1.4): the server sends a `request` with the questions; the client answers
 * with `{request_id, answers}`, answers by question text (empty: the user
 * dismissed them). Only a client that declared
 * `capabilities.supports_question` in `initialize` is asked.
 */
import { randomUUID } from "node:crypto";
import * as z from "zod/v4";
import type { WireMessage } from "./wire-message.js";

/** One question: kimi-cli's `QuestionItem`. */
export interface WireQuestionItem {
  question: string;
  /** A short label (kimi-cli: at most 12 characters). */
  header?: string;
  options: { label: string; description?: string }[];
  multi_select?: boolean;
}

/** Answers by question text (several labels joined with ", "). */
export type WireAnswers = Record<string, string>;

/** Asking the wire client, handed to `ServeWireOptions.onQuestions` when serving starts. */
export interface WireQuestionChannel {
  /** True once the client declared `capabilities.supports_question`. */
  readonly supported: boolean;
  /**
   * Sends a `QuestionRequest` for tool call `toolCallId`; resolves to the
   * answers (empty: dismissed, or the client answered with an error or
   * something invalid), or null when `signal` aborted or serving ended.
   * @throws Error when the client did not declare support.
   */
  ask(toolCallId: string, questions: readonly WireQuestionItem[], signal?: AbortSignal): Promise<WireAnswers | null>;
}

const answersSchema = z.looseObject({ answers: z.record(z.string(), z.string()) });

/** The questions sent and not answered yet, for the server to settle. */
export class WireQuestions implements WireQuestionChannel {
  supported = false;
  readonly #pending = new Map<string, (answers: WireAnswers | null) => void>();

  constructor(private readonly send: (message: WireMessage) => void) {}

  ask(toolCallId: string, questions: readonly WireQuestionItem[], signal?: AbortSignal): Promise<WireAnswers | null> {
    if (!this.supported) return Promise.reject(new Error("the wire client did not declare capabilities.supports_question"));
    if (signal?.aborted) return Promise.resolve(null);
    const id = `q-${randomUUID()}`;
    return new Promise((resolve) => {
      const onAbort = () => this.settle(id, null);
      this.#pending.set(id, (answers) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(answers);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.send({ type: "QuestionRequest", payload: { id, tool_call_id: toolCallId, questions: questions.map((q) => ({ ...q })) } });
    });
  }

  /** Whether `id` is a question waiting for its answer. */
  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /** Settles question `id` with the client's `result` (an error or an invalid result: dismissed). */
  answer(id: string, result: unknown, isError: boolean): void {
    const parsed = answersSchema.safeParse(result);
    this.settle(id, !isError && parsed.success ? parsed.data.answers : {});
  }

  /** Settles every question still waiting with null (serving ended). */
  close(): void {
    for (const id of [...this.#pending.keys()]) this.settle(id, null);
  }

  private settle(id: string, answers: WireAnswers | null): void {
    const resolve = this.#pending.get(id);
    this.#pending.delete(id);
    resolve?.(answers);
  }
}
