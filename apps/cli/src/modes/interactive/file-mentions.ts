/**
 * `@path` mentions in a prompt: each names a file of the working directory
 * whose text is attached to the prompt, read through the confined file
 * tools (a mention of a path outside the working directory, or through a
 * link leading out, is refused like the model's own reads), capped like a
 * tool's output. A mentioned image (PNG, JPEG, GIF, WebP), and an image
 * path pasted on its own (`/abs/shot.png`, `'./a b.png'`), is attached as an
 * image part, scaled down to the provider limits; when the model takes no
 * images, {@link ImageInputError} is thrown before anything is sent.
 */
import type { ContentPart } from "@kosong/core";
import type { UserInput } from "@kosong/soul";
import { looksLikeImageName } from "../../media/image-type.js";
import { readImageInside } from "../../media/read-image-inside.js";
import { capOutput } from "../../tools/cap-output.js";
import { readTextInside } from "../../tools/read-text-inside.js";
import type { Workspace } from "../../tools/workspace.js";

/** A prompt with its mentioned files attached, and the mentions that could not be. */
export interface MentionedPrompt {
  /** The prompt's text with the mentioned text files appended. */
  text: string;
  /** What to send: `text` alone, or `text` and the attached images. */
  input: UserInput;
  attached: string[];
  refused: { path: string; reason: string }[];
}

/** Whether the model takes images, and its name for the error. */
export interface ImageInput {
  accepted: boolean;
  model: string;
}

/** A prompt attached an image for a model that takes none: nothing was sent. */
export class ImageInputError extends Error {
  override name = "ImageInputError";
  constructor(readonly model: string, readonly image: string) {
    super(`The model ${model} does not accept images (the prompt attaches ${image}); nothing was sent. Use a model that takes images, or set image_input = true in the config if this one does.`);
  }
}

/** `prompt` with the text of each file it mentions (`@path`) attached after it, once each, and each image as an image part. */
export async function attachMentions(prompt: string, workspace: Workspace, imageInput: ImageInput = { accepted: true, model: "" }): Promise<MentionedPrompt> {
  const mentions = [...prompt.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((match) => match[1]!.replace(/[.,;:!?)]+$/, ""));
  const pasted = [...prompt.matchAll(/(?:^|\s)(['"]?)((?:\/|\.\/|\.\.\/)[^\n'"]*?)\1(?=\s|$)/g)].map((match) => match[2]!).filter(looksLikeImageName);
  const paths = [...new Set([...mentions, ...pasted])];
  const attached: string[] = [];
  const refused: MentionedPrompt["refused"] = [];
  const images: ContentPart[] = [];
  let text = prompt;
  for (const mentioned of paths) {
    if (looksLikeImageName(mentioned)) {
      if (!imageInput.accepted) throw new ImageInputError(imageInput.model, mentioned);
      const image = await readImageInside(workspace, mentioned);
      if (!image.ok) refused.push({ path: mentioned, reason: image.failure.message });
      else {
        attached.push(mentioned);
        images.push({ type: "text", text: `<image path="${mentioned}">` }, image.part, { type: "text", text: "</image>" });
      }
      continue;
    }
    const read = await readTextInside(workspace, mentioned);
    if (!read.ok) {
      refused.push({ path: mentioned, reason: read.failure.message });
      continue;
    }
    attached.push(mentioned);
    text += `\n\n<file path="${mentioned}">\n${capOutput(read.text).replace(/\n$/, "")}\n</file>`;
  }
  return { text, input: images.length > 0 ? [{ type: "text", text }, ...images] : text, attached, refused };
}

/** `input` with `notices` (answers of background agents) in front of its text. */
export function withNoticesFirst(notices: string, input: UserInput): UserInput {
  if (typeof input === "string") return `${notices}\n\n${input}`;
  return [{ type: "text", text: notices }, ...input];
}

/** `mentioned.input` with its text replaced by `text` (the same text with a note added, say), the images kept. */
export function withText(mentioned: MentionedPrompt, text: string): UserInput {
  return typeof mentioned.input === "string" ? text : [{ type: "text", text }, ...mentioned.input.slice(1)];
}
