/**
 * What the model reads about `SendDMail`: whether the files come back with
 * the conversation depends on the context's file journal, so the soul shows
 * the description that matches its context.
 */
import type { Tool, Toolset } from "@kosong/core";

const head = `Send a message to your past self at a checkpoint, to change the course of the conversation ("D-Mail").

The conversation shows its checkpoints as <system>CHECKPOINT n</system> messages. When you send a D-Mail to checkpoint n, everything after that checkpoint is discarded and your past self continues from there with your message, without seeing what happened after it.`;

const withoutJournal = "Files and other effects outside the conversation are NOT reverted.";

const withJournal =
  "The workspace files your tools changed after that checkpoint are restored to their state at it (a file changed outside the agent since is left alone); other effects outside the conversation are NOT reverted.";

const tail = `Use it when going back is cheaper than going on: for example when a long tool output you no longer need fills the context (send yourself its useful part), or when an approach failed (tell your past self what to avoid). Only one D-Mail can be sent at a time, and it takes effect when the current step ends.`;

/** The description of `SendDMail`: `filesRestored` when the context has a file journal (a D-Mail then restores the files). */
export function sendDMailDescription(filesRestored: boolean): string {
  return `${head} ${filesRestored ? withJournal : withoutJournal}\n\n${tail}`;
}

/**
 * `toolset` as the model sees it on a context whose D-Mail restores files
 * (`filesRestored`): the tool named `name` (`SendDMail`) gets the
 * description that says so; everything else, and every call, is
 * `toolset`'s. Without `filesRestored` it is `toolset` itself.
 */
export function describeDMailFiles(toolset: Toolset, name: string, filesRestored: boolean): Toolset {
  if (!filesRestored) return toolset;
  let source: readonly Tool[] | null = null;
  let shown: readonly Tool[] = [];
  return {
    get tools(): readonly Tool[] {
      if (toolset.tools !== source) {
        source = toolset.tools;
        shown = source.map((tool) => (tool.name === name ? { ...tool, description: sendDMailDescription(true) } : tool));
      }
      return shown;
    },
    handle: (call, options) => toolset.handle(call, options),
  };
}
