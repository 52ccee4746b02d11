/**
 * Which addresses FetchURL may connect to: public unicast addresses only,
 * unless the user allowed an address or range (config `fetch_allow_private`).
 * Loopback, link-local, private, unique-local, carrier-grade NAT,
 * multicast, reserved and IPv4 embedded in IPv6 (mapped, 6to4, Teredo) are
 * refused: a model must not reach the user's network or the cloud metadata
 * service through a page it was told to read.
 */
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Decides, for each resolved address, whether FetchURL may connect to it. */
export class AddressPolicy {
  readonly #allowed: [Address, number][];

  /** @param allowed IPs or CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `::1`) allowed even though private; throws on a malformed one. */
  constructor(allowed: readonly string[] = []) {
    this.#allowed = allowed.map((entry) => (entry.includes("/") ? ipaddr.parseCIDR(entry) : ((address) => [address, address.kind() === "ipv4" ? 32 : 128] as [Address, number])(ipaddr.parse(entry))));
  }

  /** Whether `entry` is an IP or a CIDR range (for checking settings). */
  static isValidEntry(entry: string): boolean {
    return entry.includes("/") ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
  }

  /** Null when `ip` may be connected to, else why not (e.g. `127.0.0.1 is a loopback address`). */
  refusal(ip: string): string | null {
    if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
    const address = ipaddr.process(ip);
    const range = address.range();
    if (range === "unicast") return null;
    if (this.#allowed.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits))) return null;
    return `${address.toString()} is a ${range} address (allow it with fetch_allow_private in the config)`;
  }
}
