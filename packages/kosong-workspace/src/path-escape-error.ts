/** Paths that lead outside a workspace: the check, and the error for them. */
import path from "node:path";
import { WorkspaceError } from "./workspace-error.js";

/** Thrown for a path outside the workspace; tools turn it into an error result. */
export class PathEscapeError extends WorkspaceError {
  static override readonly brand: string = "@kosong/workspace.error.PathEscapeError";

  constructor(readonly requested: string) {
    super(`Path \`${requested}\` is outside the working directory; only files inside it can be used.`);
  }
}

/** True when the absolute path `target` is `root` or below it (compared as written, no links resolved). */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (relative.split(path.sep)[0] !== ".." && !path.isAbsolute(relative));
}
