/** At most `size` holders at once; the others wait in order (the bound on children running in parallel). */
export class Slots {
  readonly #size: number;
  #used = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#size = size;
  }

  /** Runs `work` once a slot is free (or rejects when `signal` aborts while it waits). */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#used >= this.#size) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.#waiting.splice(this.#waiting.indexOf(go), 1);
          reject(signal!.reason);
        };
        const go = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        this.#waiting.push(go);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    } else {
      this.#used++;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#used--;
    }
  }
}
