/**
 * Preloaded into a run of the built binary by the tests
 * (`NODE_OPTIONS=--import <this file>`): records every module the run loads
 * from a file (its `file:` URL, through a module load hook) and writes them,
 * one per line, to the file named by `KOSONG_TEST_LOADED_MODULES` at exit.
 */
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const out = process.env.KOSONG_TEST_LOADED_MODULES;
if (out) {
  const loaded = [];
  registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith("file:")) loaded.push(url);
      return nextLoad(url, context);
    },
  });
  process.on("exit", () => writeFileSync(out, loaded.join("\n")));
}
