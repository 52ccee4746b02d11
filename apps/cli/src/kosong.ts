/**
 * The `kosong` binary's entry. `kosong --version` (or `-V`) alone prints
 * the version here and loads nothing else (see `version.ts`); any other
 * command turns on Node's compile cache (see `compile-cache.ts`), then runs
 * the command line (`cli-main.ts`), whose modules the cache then covers.
 * The build bundles this entry on its own (`tsup.config.ts`), so that
 * `kosong --version` reads one small file.
 */
import { exitOnClosedStdout } from "./closed-stdout.js";
import { startupMark } from "./startup-marks.js";
import { asksOnlyForVersion, versionText } from "./version.js";

exitOnClosedStdout();
if (asksOnlyForVersion(process.argv.slice(2))) {
  process.stdout.write(`${versionText}\n`);
} else {
  startupMark("entry");
  const { enableCompileCache } = await import("./compile-cache.js");
  await enableCompileCache();
  await import("./cli-main.js");
}
