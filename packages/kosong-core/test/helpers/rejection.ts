/**
 * What `promise` rejects with; fails the test when it resolves. Typed as an
 * `Error` for convenience: assert the kind before relying on it.
 */
export async function rejection<E = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error("expected a rejection");
}
