/**
 * A FIFO of UTF-8 bytes: appended lines are encoded once, straight into
 * fixed-size chunks (or pushed as bytes already encoded, which are copied
 * in), and taken from the front as buffer views for one
 * `writev`. Bytes already taken are never written to again, so views handed
 * to an in-flight write stay valid while new lines are pushed behind them.
 */
const CHUNK_SIZE = 256 * 1024;

export class ByteQueue {
  #chunks: Buffer[] = [];
  /** Read position in `#chunks[0]`. */
  #head = 0;
  /** Write position in the last chunk; every other chunk is full to its length. */
  #tail = 0;
  #length = 0;

  /** Bytes pushed and not yet taken. */
  get length(): number {
    return this.#length;
  }

  /**
   * Encodes `line` as UTF-8 at the back, followed by a newline; returns the
   * byte length written. (Writing the newline as a byte, rather than
   * encoding `line + "\n"`, spares flattening a concatenated string.)
   */
  pushLine(line: string): number {
    const chunks = this.#chunks;
    let last = chunks[chunks.length - 1];
    const room = last === undefined ? 0 : last.length - this.#tail;
    if (last === undefined || room <= line.length * 3) {
      const exact = Buffer.byteLength(line, "utf8") + 1;
      if (last === undefined || room < exact) {
        if (last !== undefined) {
          if (this.#tail === this.#head && chunks.length === 1) chunks.pop();
          else chunks[chunks.length - 1] = last.subarray(0, this.#tail);
        }
        last = Buffer.allocUnsafeSlow(Math.max(CHUNK_SIZE, exact));
        if (chunks.length === 0) this.#head = 0;
        chunks.push(last);
        this.#tail = 0;
      }
    }
    const written = last.write(line, this.#tail, "utf8") + 1;
    this.#tail += written;
    last[this.#tail - 1] = 10;
    this.#length += written;
    return written;
  }

  /**
   * Copies `bytes` to the back (across chunks when they do not fit in the
   * current one). The view is not kept: it may point into memory that its
   * owner reuses after the call (such as an encoder's scratch memory).
   * Returns nothing: the caller knows the length it pushed.
   */
  pushBytes(bytes: Uint8Array): void {
    let count = bytes.length;
    if (count === 0) return;
    this.#length += count;
    const chunks = this.#chunks;
    let last = chunks[chunks.length - 1];
    let from = 0;
    for (;;) {
      if (last !== undefined) {
        const room = last.length - this.#tail;
        if (count <= room) {
          last.set(from === 0 ? bytes : bytes.subarray(from), this.#tail);
          this.#tail += count;
          return;
        }
        if (room > 0) {
          last.set(bytes.subarray(from, from + room), this.#tail);
          this.#tail = last.length;
          from += room;
          count -= room;
        }
        // The last chunk is full; a new one follows (replacing it when all of it was taken already).
        if (this.#head === this.#tail && chunks.length === 1) chunks.pop();
      }
      last = Buffer.allocUnsafeSlow(CHUNK_SIZE);
      if (chunks.length === 0) this.#head = 0;
      chunks.push(last);
      this.#tail = 0;
    }
  }

  /**
   * Drops bytes from the back until `length` remain: undoes pushes made
   * since `length` was read (nothing may have been taken in between).
   */
  rewind(length: number): void {
    let drop = this.#length - length;
    if (drop < 0) throw new RangeError(`cannot rewind ${this.#length} bytes to ${length}`);
    this.#length = length;
    const chunks = this.#chunks;
    while (drop > 0) {
      const filled = this.#tail - (chunks.length === 1 ? this.#head : 0);
      if (drop <= filled || chunks.length === 1) {
        this.#tail -= drop;
        return;
      }
      chunks.pop();
      drop -= filled;
      this.#tail = chunks[chunks.length - 1]!.length;
    }
  }

  /** Removes `count` bytes from the front and returns them as buffer views (in order). */
  take(count: number): Buffer[] {
    if (count > this.#length) throw new RangeError(`cannot take ${count} of ${this.#length} bytes`);
    const out: Buffer[] = [];
    const chunks = this.#chunks;
    let rest = count;
    while (rest > 0) {
      const chunk = chunks[0]!;
      const end = chunks.length === 1 ? this.#tail : chunk.length;
      const available = end - this.#head;
      if (rest < available) {
        out.push(chunk.subarray(this.#head, this.#head + rest));
        this.#head += rest;
        rest = 0;
      } else {
        out.push(chunk.subarray(this.#head, end));
        rest -= available;
        if (chunks.length === 1) {
          this.#head = end;
        } else {
          chunks.shift();
          this.#head = 0;
        }
      }
    }
    this.#length -= count;
    return out;
  }
}
