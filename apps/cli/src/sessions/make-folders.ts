/**
 * Creates a folder and its missing parents one at a time. Node's recursive
 * `mkdir` retries forever where a parent exists but refuses children with
 * ENOENT (`KOSONG_HOME=/proc/x` spun at 85 % CPU): here each level is made
 * once, and a refusal is thrown.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";

/** Makes `dir` and the folders above it that are missing, with `mode`; throws the first refusal. */
export async function makeFolders(dir: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let folder = path.resolve(dir); ; folder = path.dirname(folder)) {
    const made = await mkdir(folder, { mode }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") return true;
        if (error.code === "ENOENT" && path.dirname(folder) !== folder && missing.length < 256) return false;
        throw error;
      },
    );
    if (made) break;
    missing.push(folder);
  }
  // The first folder that could not be made had a missing parent: make them top-down, each once.
  for (const folder of missing.reverse()) {
    await mkdir(folder, { mode }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
}
