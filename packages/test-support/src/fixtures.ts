/** The shared fixtures folder (`../shared/fixtures` beside the repository; see its READMEs). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** `../shared/fixtures` beside the repository (override with KOSONG_FIXTURES). */
export const FIXTURES = process.env.KOSONG_FIXTURES ?? fileURLToPath(new URL("../../../../shared/fixtures/", import.meta.url));

/** Absolute path of a fixture file, e.g. `fixture("provider-streams/anthropic-messages/stream-text.sse")`. */
export function fixture(relative: string): string {
  return path.join(FIXTURES, relative);
}

/** A fixture file's text. */
export function readFixture(relative: string): string {
  return readFileSync(fixture(relative), "utf8");
}
