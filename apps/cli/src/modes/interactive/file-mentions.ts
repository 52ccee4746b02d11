/**
 * `@path` mentions in a prompt: each names a file of the working directory
 * whose text is attached to the prompt, read through the confined file
 * tools (a mention of a path outside the working directory, or through a
 * link leading out, is refused like the model's own reads), capped like a
 * tool's output.
 */
import { capOutput } from "../../tools/cap-output.js";
import { readTextInside } from "../../tools/read-text-inside.js";
import type { Workspace } from "../../tools/workspace.js";

/** A prompt with its mentioned files attached, and the mentions that could not be. */
export interface MentionedPrompt {
  text: string;
  attached: string[];
  refused: { path: string; reason: string }[];
}

/** `prompt` with the text of each file it mentions (`@path`) attached after it, once each. */
export async function attachMentions(prompt: string, workspace: Workspace): Promise<MentionedPrompt> {
  const paths = [...new Set([...prompt.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((match) => match[1]!.replace(/[.,;:!?)]+$/, "")))];
  const attached: string[] = [];
  const refused: MentionedPrompt["refused"] = [];
  let text = prompt;
  for (const mentioned of paths) {
    const read = await readTextInside(workspace, mentioned);
    if (!read.ok) {
      refused.push({ path: mentioned, reason: read.failure.message });
      continue;
    }
    attached.push(mentioned);
    text += `\n\n<file path="${mentioned}">\n${capOutput(read.text).replace(/\n$/, "")}\n</file>`;
  }
  return { text, attached, refused };
}
