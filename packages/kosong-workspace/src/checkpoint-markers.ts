/**
 * The checkpoint markers of a file journal (`cp` records): where each
 * checkpoint was marked, its id and its branch, in journal order. Kept in
 * three growable number columns rather than an object per marker: a long
 * session marks tens of thousands of checkpoints, and the journal holds
 * them all for as long as it is open.
 */
export class CheckpointMarkers {
  #seqs = new Float64Array(1024);
  #ids = new Float64Array(1024);
  #branches = new Float64Array(1024);
  #length = 0;

  /** How many markers there are. */
  get length(): number {
    return this.#length;
  }

  /** Adds the marker of checkpoint `id` on branch `b` at journal position `seq` (after every marker so far). */
  push(seq: number, id: number, b: number): void {
    if (this.#length === this.#seqs.length) {
      this.#seqs = grown(this.#seqs);
      this.#ids = grown(this.#ids);
      this.#branches = grown(this.#branches);
    }
    this.#seqs[this.#length] = seq;
    this.#ids[this.#length] = id;
    this.#branches[this.#length] = b;
    this.#length += 1;
  }

  /** The newest marker's checkpoint id and branch, undefined without one. */
  last(): { id: number; b: number } | undefined {
    const i = this.#length - 1;
    return i < 0 ? undefined : { id: this.#ids[i]!, b: this.#branches[i]! };
  }

  /** The position of the newest marker of checkpoint `id` on branch `b` at or before `before`, null without one. */
  find(id: number, b: number, before: number): number | null {
    for (let i = this.#length - 1; i >= 0; i--) {
      if (this.#seqs[i]! <= before && this.#branches[i] === b && this.#ids[i] === id) return this.#seqs[i]!;
    }
    return null;
  }
}

function grown(column: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const next = new Float64Array(column.length * 2);
  next.set(column);
  return next;
}
