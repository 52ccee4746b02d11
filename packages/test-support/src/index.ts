/**
 * @kosong/test-support: what the packages' tests share (private, not
 * published). Tests import it as `@kosong/test-support`; the root
 * vitest.config.ts maps that to this source, so each test file gets its own
 * copy (and its own clean-up hooks).
 */
export { FIXTURES, fixture, readFixture } from "./fixtures.js";
export { tempDir } from "./temp-dir.js";
