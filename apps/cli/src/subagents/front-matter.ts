/**
 * The front matter of an agent file, read by the one front matter parser
 * (`../extensions/front-matter.ts`: plain and quoted strings, inline
 * `[a, b]` lists and `- item` lists, controls removed, sizes capped). The
 * body, the agent's system prompt, is trimmed.
 */
import { type FrontMatterFile, parseFrontMatter as parseFile } from "../extensions/front-matter.js";

export { splitList } from "../extensions/front-matter.js";

/** Splits `text` into its front matter and its trimmed body; a file without front matter is all body. */
export function parseFrontMatter(text: string): FrontMatterFile {
  const { fields, body } = parseFile(text);
  return { fields, body: body.trim() };
}
