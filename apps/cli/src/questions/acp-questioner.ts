/**
 * AskUserQuestion over ACP (`kosong acp`): ACP has no question request, so
 * each question is put to the editor's user as a permission request whose
 * options are the question's (see `@kosong/acp`'s `ClientBridge.choose`),
 * one after the other. A permission request takes one option and no typed
 * text, so a call with a multi-select question fails with a result saying
 * so, before anything is asked.
 */
import type { ClientBridge } from "@kosong/acp";
import type { QuestionAnswers, Questioner } from "./ask-user-question.js";

/** What the model is told when a call holds multi-select questions. */
export const acpMultiSelectRefusal =
  "AskUserQuestion over ACP asks single-choice questions only: the editor shows each question as a choice among its options (one option, no typed answer). Ask again without multi_select (one choice per question), or decide with your best judgement and say what you assumed.";

/** Asks through the editor's `choose`. */
export function acpQuestioner(client: Pick<ClientBridge, "choose">): Questioner {
  return {
    async ask(questions, signal, toolCallId) {
      if (questions.some((q) => q.multi_select)) return acpMultiSelectRefusal;
      const answers: QuestionAnswers = {};
      for (const q of questions) {
        const title = q.header ? `[${q.header}] ${q.question}` : q.question;
        const chosen = await client.choose({ toolCallId, title, options: q.options, signal });
        if (chosen === null) return null;
        answers[q.question] = q.options[chosen]!.label;
      }
      return answers;
    },
  };
}
