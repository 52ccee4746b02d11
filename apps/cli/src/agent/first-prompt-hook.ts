/**
 * A session's first prompt recorded in its `session.json` as its first
 * turn starts, in every mode: the prompt a `--wire` or ACP client sends as
 * much as the one typed or given with `-p`. Listings skip a session with no
 * first prompt and nothing but a system prompt in its local conversation
 * file, which is all a `--store` session has on disk: without this record, a
 * client's session killed before it closed would be taken for one that never
 * got a prompt.
 */
import type { SoulHooks } from "@kosong/soul/hooks";
import { firstPromptNotRecorded, recordFirstPromptMeanwhile, type SessionInfo } from "../sessions/session-store.js";

/** Hooks that record the first prompt, and the write to wait for before the session closes. */
export interface FirstPromptHook {
  /** `hooks`, whose UserPromptSubmit also records the session's first prompt (once, unless a hook blocks it). */
  hooks: SoulHooks;
  /** Resolves once the record's write (if one started) has ended; never rejects. */
  settled(): Promise<void>;
}

/**
 * `hooks` with the first prompt of `session` (none for `--resume-file`)
 * recorded as the turn starts: the request does not wait for the write
 * (which syncs to disk); a failed write is told through `warn` and the
 * session goes on (closing it records the prompt from the history).
 */
export function withFirstPromptHook(hooks: SoulHooks, session: SessionInfo | null, warn: (line: string) => void): FirstPromptHook {
  let recording: Promise<void> = Promise.resolve();
  // Asked once: after a failed write the session has no first prompt again (closing it records the one in the history), and a later prompt is not the first.
  let asked = false;
  return {
    hooks: {
      ...hooks,
      userPromptSubmit: async (input) => {
        const outcome = await hooks.userPromptSubmit?.(input);
        if (asked || session?.firstPrompt !== null || (outcome && outcome.block !== undefined)) return outcome;
        asked = true;
        recording = recordFirstPromptMeanwhile(session, input.prompt).then((failed) => {
          if (failed !== null) warn(firstPromptNotRecorded(failed.error));
        });
        return outcome;
      },
    },
    settled: () => recording,
  };
}
