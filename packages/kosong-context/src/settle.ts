/** The outcome of a promise, as a value. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The outcome of `promise`; the returned promise never rejects. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
