/**
 * The checkpoint markers of a file journal (`cp` records): where each
 * checkpoint was marked, its id and its branch, in journal order. Kept in
 * three growable number columns rather than an object per marker: a long
 * session marks tens of thousands of checkpoints, and the journal holds
 * them all for as long as it is open. Each marker also links to the
 * previous marker of the same checkpoint id and branch, and the newest of
 * each is indexed, so {@link find} visits only markers of that id and branch
 * (a listing asks for every checkpoint's: linear, not quadratic, in them).
 */
export class CheckpointMarkers {
  #seqs = new Float64Array(1024);
  #ids = new Float64Array(1024);
  #branches = new Float64Array(1024);
  /** Per marker: the index of the previous marker of the same id and branch, -1 for none. */
  #previous = new Float64Array(1024);
  /** Per branch, per checkpoint id: the index of its newest marker. */
  readonly #newest = new Map<number, Map<number, number>>();
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
      this.#previous = grown(this.#previous);
    }
    let ofBranch = this.#newest.get(b);
    if (ofBranch === undefined) this.#newest.set(b, (ofBranch = new Map()));
    this.#seqs[this.#length] = seq;
    this.#ids[this.#length] = id;
    this.#branches[this.#length] = b;
    this.#previous[this.#length] = ofBranch.get(id) ?? -1;
    ofBranch.set(id, this.#length);
    this.#length += 1;
  }

  /** The newest marker's checkpoint id and branch, undefined without one. */
  last(): { id: number; b: number } | undefined {
    const i = this.#length - 1;
    return i < 0 ? undefined : { id: this.#ids[i]!, b: this.#branches[i]! };
  }

  /** The position of the newest marker of checkpoint `id` on branch `b` at or before `before`, null without one. */
  find(id: number, b: number, before: number): number | null {
    for (let i = this.#newest.get(b)?.get(id) ?? -1; i >= 0; i = this.#previous[i]!) {
      if (this.#seqs[i]! <= before) return this.#seqs[i]!;
    }
    return null;
  }
}

function grown(column: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const next = new Float64Array(column.length * 2);
  next.set(column);
  return next;
}
