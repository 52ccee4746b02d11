/**
 * Whether a file a workspace brings (its permission rules, its hooks) is
 * reached through a link that leaves the workspace: a cloned `.kosong` or
 * `.claude` linked to a folder elsewhere (say the user's own `~/.claude`),
 * or a settings file linked to one outside. Such a file is not the
 * workspace's: it is neither read as the workspace's (the read itself
 * checks what it opened: `within` of the capped reads) nor written through.
 * Links that stay inside the workspace, and a workspace that itself lives
 * under a linked path, are fine: both sides are compared as real paths.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { isInside } from "@kosong/workspace";

/**
 * The part of workspace file `file` that leads (through links) out of
 * `workspace`: its folder, or the file itself; null when both stay inside
 * (or are not there).
 * @throws Error when a path cannot be resolved for another reason (a link loop, no permission).
 */
export async function linkOutOf(workspace: string, file: string): Promise<string | null> {
  const missing = (error: NodeJS.ErrnoException) => (error.code === "ENOENT" || error.code === "ENOTDIR" ? null : Promise.reject(error));
  const root = await realpath(workspace);
  for (const part of [path.dirname(file), file]) {
    const real = await realpath(part).catch(missing);
    if (real !== null && !isInside(root, real)) return part;
  }
  return null;
}

/**
 * What a notice names for workspace file `file` when a confined read found
 * it, as opened, outside `workspace`: the part that leads out (its folder or
 * the file, relative to the workspace), or the file itself when the links
 * have changed since the read.
 */
export async function shownLinkOut(workspace: string, file: string): Promise<string> {
  const link = await linkOutOf(workspace, file).catch(() => null);
  return path.relative(workspace, link ?? file);
}
