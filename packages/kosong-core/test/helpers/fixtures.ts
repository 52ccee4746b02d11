import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** `../shared/fixtures` beside the repository (override with KOSONG_FIXTURES). */
export const FIXTURES = process.env.KOSONG_FIXTURES ?? fileURLToPath(new URL("../../../../../shared/fixtures/", import.meta.url));

/** Absolute path of a fixture file, e.g. `fixture("provider-streams/anthropic-messages/stream-text.sse")`. */
export function fixture(relative: string): string {
  return path.join(FIXTURES, relative);
}

/** A fixture file's text. */
export function readFixture(relative: string): string {
  return readFileSync(fixture(relative), "utf8");
}
