/**
 * What the prompt looks like: a {@link PromptState} laid out as display
 * lines at a width, with the cursor's place. Pure: the screen writer draws it.
 */
import { visibleControls } from "../../render/visible-controls.js";
import type { EditLayout } from "./edit-buffer.js";
import type { PromptState } from "./prompt-state.js";

/** The prompt's lines and cursor at a width. */
export interface PromptView extends EditLayout {
  /** The width it was laid out at. */
  columns: number;
}

/** Lays out `state` after `prompt` (shown as Ctrl-R's search line while it searches) at `columns` (at least 10). */
export function promptView(state: PromptState, prompt: string, columns: number): PromptView {
  const width = Math.max(10, columns);
  const shownPrompt = state.search === null ? prompt : `(history search: ${visibleControls(state.search.query, { oneLine: true })})› `;
  return { ...state.buffer.layout(shownPrompt, width), columns: width };
}
