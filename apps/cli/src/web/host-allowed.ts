/** Whether a host is on the user's list of hosts FetchURL reaches without asking. */

/**
 * Whether `host` (`name` or `name:port`, as in a URL) matches an entry of
 * `allowed`: the same name (any port, or the entry's port), or `*.domain`
 * for a name under it. Names compare without case.
 */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const [name, port] = splitHost(host.toLowerCase());
  return allowed.some((entry) => {
    const [pattern, wantPort] = splitHost(entry.toLowerCase());
    if (wantPort !== null && wantPort !== port) return false;
    return pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

function splitHost(host: string): [string, string | null] {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  return match ? [match[1]!, match[2] ?? null] : [host, null];
}
