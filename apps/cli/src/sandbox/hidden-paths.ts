/**
 * What a sandboxed command must not read or reach, though the rest of the
 * file system is readable: credential folders and files in the home folder,
 * kosong's own config and sessions, and the Unix sockets of agents and
 * daemons that would act outside the sandbox (ssh-agent, the user's session
 * bus, Docker, containerd, Podman). Each exists or is left out; each is
 * given by its real path (a symlinked `~/.ssh` hides its target).
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";

/** Credential folders and files, relative to the home folder. */
export const homeCredentialPaths = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".kube",
  ".docker",
  ".gnupg",
  ".password-store",
  ".local/share/keyrings",
  ".terraform.d",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".config/google-chrome",
  ".config/chromium",
  ".mozilla",
] as const;

/** Daemon sockets and runtime folders outside the home folder. */
export const systemHiddenPaths = ["/run/user", "/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman", "/run/dbus"] as const;

/** Where the paths to hide are, from kosong's environment and its own folders. */
export interface HiddenPathSources {
  /** The user's home folder. */
  home: string;
  /** kosong's config and session folders (`$KOSONG_HOME`, a session folder elsewhere, a `--resume-file` file). */
  kosongPaths: readonly string[];
  /** `SSH_AUTH_SOCK`, when set. */
  sshAuthSock?: string | undefined;
}

/** A path to hide: a folder is covered with an empty one, anything else with an empty file. */
export interface HiddenPath {
  path: string;
  directory: boolean;
}

/** The real paths to hide that exist, without duplicates or paths inside another one (hidden with it). */
export function hiddenPaths(sources: HiddenPathSources): HiddenPath[] {
  const candidates = [
    ...homeCredentialPaths.map((relative) => path.join(sources.home, relative)),
    ...sources.kosongPaths,
    ...systemHiddenPaths,
    ...(sources.sshAuthSock ? [sources.sshAuthSock] : []),
  ];
  const real = candidates.map(existingRealPath).filter((p): p is string => p !== null && p !== "/");
  const inside = (p: string, parent: string) => p.startsWith(`${parent}${path.sep}`);
  const outermost = [...new Set(real)].filter((p) => !real.some((other) => inside(p, other)));
  return outermost.map((p) => ({ path: p, directory: statSync(p).isDirectory() }));
}

/**
 * The real path of `p` when it exists, else null. The system's `realpath`
 * (one call per path): Node's own resolves a path one `lstat` per folder in
 * JavaScript, about 5 ms for the 30 or so paths each session opens with.
 */
function existingRealPath(p: string): string | null {
  try {
    return realpathSync.native(path.resolve(p));
  } catch {
    return null;
  }
}
