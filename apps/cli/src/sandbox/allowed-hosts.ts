/**
 * Matching a host and port a sandboxed command asks the proxy for against
 * the `sandbox.network` list: `host` (any port), `host:port`, `*.domain`
 * (its subdomains, not the domain itself). Names compare case-insensitively;
 * IPv6 addresses are written in brackets (`[::1]`).
 */

/** A matcher for the hosts in `allowed`. */
export function allowedHosts(allowed: readonly string[]): (host: string, port: number) => boolean {
  const entries = allowed.map(parseEntry);
  return (host, port) => {
    const name = normalizeHost(host);
    return entries.some((entry) => (entry.port === null || entry.port === port) && (entry.wildcard ? name.endsWith(`.${entry.host}`) : name === entry.host));
  };
}

interface Entry {
  host: string;
  port: number | null;
  wildcard: boolean;
}

function parseEntry(entry: string): Entry {
  const match = /^(\*\.)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim());
  if (!match) return { host: "", port: null, wildcard: false };
  return { host: normalizeHost(match[2]!), port: match[3] === undefined ? null : Number(match[3]), wildcard: match[1] !== undefined };
}

/** Lower case, brackets of an IPv6 address and a trailing dot removed. */
function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}
