/**
 * Whether commands can be sandboxed here: Linux, `bwrap` (bubblewrap) on
 * the PATH, and a trial sandbox that starts (user namespaces may be off in
 * a container or by the kernel's settings). When not, says why and what to
 * do, for the start-up notice.
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { childEnvironment } from "../tools/child-environment.js";

/** bwrap was found and works, or why not. */
export type BubblewrapProbe = { available: true; bwrap: string } | { available: false; reason: string };

/** The arguments of the trial: a sandbox as strict as a command's, running `true`. */
const trial = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent", "--", "true"];

/** Finds bwrap on `pathVariable` and starts a trial sandbox with it. */
export async function probeBubblewrap(pathVariable: string | undefined, platform: NodeJS.Platform = process.platform): Promise<BubblewrapProbe> {
  const found = findBubblewrap(pathVariable, platform);
  if (!found.available) return found;
  const failure = await trialBubblewrap(found.bwrap);
  return failure === null ? found : { available: false, reason: failure };
}

/** Finds bwrap on `pathVariable` (a file check, no process): what {@link probeBubblewrap} says before its trial. */
export function findBubblewrap(pathVariable: string | undefined, platform: NodeJS.Platform = process.platform): BubblewrapProbe {
  if (platform !== "linux") return { available: false, reason: `kosong has no sandbox for ${platformName(platform)} yet` };
  const bwrap = findExecutable("bwrap", pathVariable);
  if (bwrap === null) return { available: false, reason: "bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: sudo apt-get install bubblewrap, Fedora: sudo dnf install bubblewrap)" };
  return { available: true, bwrap };
}

/** Starts a trial sandbox with `bwrap` (in the environment Shell commands get, without credentials): null when it ran, else why it could not (for the notice). */
export async function trialBubblewrap(bwrap: string): Promise<string | null> {
  const failure = await new Promise<string | null>((resolve) => {
    execFile(bwrap, trial, { timeout: 10_000, env: childEnvironment(process.env) }, (error, _stdout, stderr) => resolve(error ? (stderr.trim() || error.message).split("\n")[0]! : null));
  });
  return failure === null ? null : `bubblewrap cannot start a sandbox here (${failure}); user namespaces may be disabled (e.g. in a container)`;
}

function findExecutable(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function platformName(platform: NodeJS.Platform): string {
  return platform === "darwin" ? "macOS" : platform === "win32" ? "Windows" : platform;
}
