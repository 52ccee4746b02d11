/** Describing anything thrown, for error messages (internal). */

/** A readable one-line description of anything thrown. Never throws. */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    return "an unprintable error";
  }
}
