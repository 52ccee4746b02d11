/**
 * A readable one-line description of anything thrown (internal). Never
 * throws itself, whatever was thrown: a value whose `message`, `toJSON` or
 * `toString` throws, a revoked proxy, a symbol or a BigInt all get a
 * description, so a failing tool always becomes an error result.
 */
export function thrownMessage(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    const json = JSON.stringify(error);
    if (json !== undefined) return json;
  } catch {
    // Fall back to String() below.
  }
  try {
    return String(error);
  } catch {
    return `an unprintable thrown ${error === null ? "null" : typeof error}`;
  }
}
