/** A time as the interactive mode shows it: `2026-11-25 18:42:05` (UTC, as in `/rotations`). */
export function timestamp(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 19).replace("T", " ");
}
