/**
 * Node's compile cache for kosong's own start: V8 keeps the compiled code
 * of the modules a run loads, so the next start skips compiling them (the
 * interactive mode is ready for input about a quarter sooner). The cache
 * lives in the user's cache folder, `$XDG_CACHE_HOME/kosong/compile` (else
 * `~/.cache/kosong/compile`; made 0700), never in the shared temporary
 * folder where another user could plant entries. Any failure (an
 * unwritable or odd folder such as one under `/proc`) only means no cache.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as for any Node program.
 */
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { makeFolders } from "./sessions/make-folders.js";

/** The folder of kosong's compile cache for `env`. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(base, "kosong", "compile");
}

/** Turns the compile cache on in {@link compileCacheDir}; never throws. */
export async function enableCompileCache(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const dir = compileCacheDir(env);
    // Made here, level by level: Node's own recursive mkdir spins on a folder such as /proc/x.
    await makeFolders(dir, 0o700);
    module.enableCompileCache?.(dir);
  } catch {
    // No cache: the start is only slower.
  }
}
