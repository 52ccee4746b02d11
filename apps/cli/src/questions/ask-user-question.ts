/**
 * The `AskUserQuestion` tool (kimi-cli's and Claude Code's shape): one to
 * four questions, each with two to four options (and a short header); the
 * user picks an option (several with `multi_select`) or types an answer of
 * their own. Who asks depends on the mode: the interactive prompt shows a
 * picker; over --wire, kimi-cli's QuestionRequest; over ACP, a permission
 * request whose options are the question's; in print mode and stream-json,
 * the answers configured ahead (`--answer`, `[questions]`). Where nobody
 * can answer, the tool fails with a result saying so, and the model goes on
 * without the answer.
 */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import * as z from "zod";

const optionSchema = z.object({
  label: z.string().min(1).max(200).describe("The option, in a few words."),
  description: z.string().max(1000).optional().describe("What choosing it means."),
});

const questionSchema = z.object({
  question: z.string().min(1).max(2000).describe("The question, ending with a question mark."),
  header: z.string().max(40).optional().describe("A short label (about 12 characters)."),
  options: z.array(optionSchema).min(2).max(4).describe("2 to 4 options; the user may also type another answer."),
  multi_select: z.boolean().optional().describe("Several options may be chosen."),
});

/** The tool's arguments: kimi-cli's `QuestionRequest.questions`. */
export const askUserQuestionSchema = z.lazy(() => z.object({ questions: z.array(questionSchema).min(1).max(4).describe("1 to 4 questions.") }));

/** One question. */
export type QuestionItem = z.infer<typeof questionSchema>;

/** Answers by question text (chosen labels joined with ", ", or the user's own text); kimi-cli's `QuestionResponse.answers`. */
export type QuestionAnswers = Record<string, string>;

/**
 * Who answers: resolves to the answers, null when the user dismissed the
 * questions, or a sentence for the model saying why none could be answered.
 */
export interface Questioner {
  ask(questions: readonly QuestionItem[], signal: AbortSignal, toolCallId: string): Promise<QuestionAnswers | null | string>;
}

/** Where the tool finds who answers now: a questioner, or why there is none (a sentence for the model). */
export type QuestionerSource = () => Questioner | string;

/** Builds `AskUserQuestion`, asking through `source()`. */
export function askUserQuestionTool(source: QuestionerSource) {
  return defineBuiltInTool({
    name: "AskUserQuestion",
    description:
      "Ask the user 1 to 4 questions with 2 to 4 options each (they may also type their own answer), when a decision is theirs to make and you cannot infer it. Do not use it for approvals: tools that change things ask by themselves.",
    parameters: askUserQuestionSchema,
    async execute({ questions }, context) {
      const questioner = source();
      if (typeof questioner === "string") return toolError({ message: questioner, brief: "no user to ask" });
      const answers = await questioner.ask(questions, context.signal, context.toolCallId);
      if (typeof answers === "string") return toolError({ message: answers, brief: "not answered" });
      if (answers === null || Object.keys(answers).length === 0) return toolError({ message: "The user dismissed the questions without answering. Go on with your best judgement, or ask in your answer.", brief: "dismissed" });
      const lines = questions.map((q) => `${q.question}\n→ ${answers[q.question] ?? "(no answer)"}`);
      return toolOk({ output: lines.join("\n\n"), brief: `${Object.keys(answers).length} answered` });
    },
  });
}

/** What the model is told where nobody can answer (`where`, e.g. "in print mode"). */
export function noQuestioner(where: string): string {
  return `AskUserQuestion is not available ${where}: no user can answer here. Decide with your best judgement, say what you assumed, and go on.`;
}
