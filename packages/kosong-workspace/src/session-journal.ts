/** A session's journal, as a soul holds it: the conversation drives its whole-log face, the tools its write face. */
import type { ContextJournal } from "./context-journal.js";
import type { ToolJournal } from "./tool-journal.js";

/** What the conversation ({@link ContextJournal}) and the tools ({@link ToolJournal}) ask of one journal; `FileJournal` is one. */
export type SessionJournal = ContextJournal & ToolJournal;
