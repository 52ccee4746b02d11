/**
 * The `Recall` tool: the model brings back what a compaction or tool-result
 * aging took out of its context, by the pointer the compaction left
 * (`r3:12-40`) or by a file's path (its last view). Add it to an agent's
 * toolset to enable recall: the soul then leaves pointers when it compacts.
 */
import { defineTool, toolError, toolOk } from "@kosong/core";
import * as z from "zod/v4";
import { RecallError } from "../recall/recall-error.js";
import "../session/tool-context.js";

/** The tool's name, by which the soul recognises that recall is enabled. */
export const RECALL_NAME = "Recall";

const description = `Bring back part of the earlier conversation that compaction took out of your context.

Compaction leaves a <system> notice listing pointers such as r3:12-40 (with the files, commands and errors each range held), and old tool outputs may be shortened to an excerpt with a pointer. Call Recall with one pointer to read that range again, or with a file path to read the last view of that file you had (a read's output or a whole-file write). Give a query to get only the lines that mention it. The result is capped: ask for narrower ranges or use a query when it is cut.`;

const field = {
  pointer: { description: "A pointer from a compaction notice, e.g. r3:12-40 or r3:7.", maxLength: 200 },
  path: { description: "A file path: returns the last view of that file in the conversation.", maxLength: 4096 },
  query: { description: "Only the lines that mention this text (with a few lines around each).", maxLength: 200 },
};

/**
 * The JSON Schema of the parameters, written out: zod's conversion (the same
 * schema, checked by a test) costs each start a few milliseconds, since
 * every agent that offers Recall loads this module.
 */
const jsonSchema = {
  type: "object",
  properties: Object.fromEntries(Object.entries(field).map(([name, { description, maxLength }]) => [name, { description, type: "string", maxLength }])),
};

/** Recalls a range or a file's last view; an unknown pointer or file is an error result the model reads. */
export const Recall = defineTool({
  name: RECALL_NAME,
  description,
  parameters: z.object({
    pointer: z.string().max(field.pointer.maxLength).optional().describe(field.pointer.description),
    path: z.string().max(field.path.maxLength).optional().describe(field.path.description),
    query: z.string().max(field.query.maxLength).optional().describe(field.query.description),
  }),
  jsonSchema,
  async execute({ pointer, path, query }, { session }) {
    if (session === undefined) return toolError({ message: "Recall only works inside a soul's session.", brief: "Recall unavailable" });
    if ((pointer === undefined) === (path === undefined)) return toolError({ message: "Give exactly one of `pointer` and `path`.", brief: "Nothing recalled" });
    try {
      const recalled = pointer === undefined ? await session.recall.file(path!, query) : await session.recall.range(pointer, query);
      const what = pointer ?? path!;
      const from = pointer === undefined ? `the last view of ${path} (${recalled.source})` : recalled.source;
      const found = query === undefined ? "" : recalled.matched ? `, the lines mentioning "${query}"` : `; "${query}" is not in it: its start and end`;
      return toolOk({ output: recalled.text, message: `Recalled ${from}${found}.`, brief: `Recalled ${what}` });
    } catch (error) {
      if (!RecallError.isInstance(error)) throw error;
      return toolError({ message: error.message, brief: "Nothing recalled" });
    }
  },
});
