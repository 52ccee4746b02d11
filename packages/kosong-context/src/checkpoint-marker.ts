/**
 * The visible checkpoint marker, `<system>CHECKPOINT n</system>`: the text of
 * the user message kimi-cli writes after a checkpoint when D-Mail is on (so
 * the model knows which checkpoint it may send a D-Mail to). It is not
 * something the user wrote: listings, exports and first prompts skip it.
 */

const checkpointMarker = /^<system>CHECKPOINT (\d+)<\/system>$/;

/** The text of checkpoint `id`'s visible marker. */
export function checkpointMarkerText(id: number): string {
  return `<system>CHECKPOINT ${id}</system>`;
}

/**
 * The checkpoint id `text` names when it is exactly a visible checkpoint
 * marker (nothing around it: trim first where surrounding space is allowed),
 * null otherwise.
 */
export function checkpointMarkerId(text: string): number | null {
  const match = checkpointMarker.exec(text);
  return match === null ? null : Number(match[1]);
}
