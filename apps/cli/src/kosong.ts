/**
 * The `kosong` binary's entry: turns on Node's compile cache (see
 * `compile-cache.ts`), then runs the command (`cli-main.ts`), whose
 * modules the cache then covers.
 */
import { enableCompileCache } from "./compile-cache.js";
import { startupMark } from "./startup-marks.js";

startupMark("entry");
await enableCompileCache();
await import("./cli-main.js");
