/**
 * Answers given ahead for `AskUserQuestion` where nobody can answer it live
 * (print mode, stream-json): by question text or header (`--answer
 * "Lang=Rust"`, config `[questions.answers]`), and a default for the other
 * questions (`--default-answer first` picks each question's first option;
 * any other text is the answer itself). A question neither names nor
 * defaults gets no answer; when no question of a call gets one, the tool
 * fails as it does without configured answers.
 */
import { UsageError } from "../cli-error.js";
import type { QuestionAnswers, QuestionItem, Questioner } from "./ask-user-question.js";

/** The default answer: each question's first option, or a text. */
export type DefaultAnswer = { kind: "first" } | { kind: "text"; text: string };

/** The answers configured for a run. */
export interface ConfiguredAnswers {
  /** Answers by question text or header, as written (matched ignoring case and runs of white space). */
  byQuestion: Record<string, string>;
  /** The answer of a question not in {@link byQuestion}, or null: none. */
  fallback: DefaultAnswer | null;
}

/** No answers configured. */
export const noConfiguredAnswers: ConfiguredAnswers = { byQuestion: {}, fallback: null };

/** Whether `answers` answers anything. */
export function hasConfiguredAnswers(answers: ConfiguredAnswers): boolean {
  return answers.fallback !== null || Object.keys(answers.byQuestion).length > 0;
}

/**
 * The answers of config `[questions]` overridden by the flags: each
 * `--answer QUESTION=ANSWER` (split at the first `=`; QUESTION is the
 * question's text or header) and `--default-answer`.
 * @throws UsageError for an `--answer` without `=` or with an empty side.
 */
export function configuredAnswers(config: { answers?: Record<string, string>; default?: string } | undefined, flags: { answer?: readonly string[]; defaultAnswer?: string }): ConfiguredAnswers {
  const byQuestion: Record<string, string> = { ...config?.answers };
  for (const pair of flags.answer ?? []) {
    const at = pair.indexOf("=");
    const [question, answer] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    if (at < 0 || question === "" || answer === "") throw new UsageError(`--answer takes QUESTION=ANSWER (the question's text or header, then the answer), got ${JSON.stringify(pair)}`);
    byQuestion[question] = answer;
  }
  const fallback = flags.defaultAnswer ?? config?.default;
  return { byQuestion, fallback: fallback === undefined || fallback.trim() === "" ? null : fallback.trim() === "first" ? { kind: "first" } : { kind: "text", text: fallback.trim() } };
}

/** The answer `configured` gives `question`, or null. */
export function configuredAnswer(configured: ConfiguredAnswers, question: QuestionItem): string | null {
  const key = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
  const wanted = [question.question, question.header].filter((text): text is string => text !== undefined && text.trim() !== "").map(key);
  for (const name of wanted) {
    const found = Object.entries(configured.byQuestion).find(([text]) => key(text) === name);
    if (found) return found[1];
  }
  const fallback = configured.fallback;
  if (fallback === null) return null;
  return fallback.kind === "first" ? question.options[0]!.label : fallback.text;
}

/**
 * Answers from `configured`: `onAnswer` hears each answer given (to tell
 * the user); when no question gets one, `unanswered` (a sentence for the
 * model) is the result.
 */
export function configuredQuestioner(configured: ConfiguredAnswers, unanswered: string, onAnswer: (question: QuestionItem, answer: string) => void = () => undefined): Questioner {
  return {
    ask: async (questions) => {
      const answers: QuestionAnswers = {};
      for (const question of questions) {
        const answer = configuredAnswer(configured, question);
        if (answer === null) continue;
        answers[question.question] = answer;
        onAnswer(question, answer);
      }
      return Object.keys(answers).length > 0 ? answers : unanswered;
    },
  };
}
