/**
 * The DNS lookup FetchURL's connections use: the name is resolved once, the
 * answers the {@link AddressPolicy} refuses are dropped, and the connection
 * goes to what is left, so a name that resolves to a private address (or
 * is re-pointed to one between a check and the connect) never reaches it.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import type { AddressPolicy } from "./address-policy.js";

/** A refused connection: the address is private and not allowed. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for `http.request` that resolves through `dns.lookup` and keeps only the addresses `policy` allows. */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, answers) => {
      if (error) return callback(error, []);
      const allowed = answers.filter((answer) => policy.refusal(answer.address) === null);
      if (allowed.length === 0) {
        const why = answers.map((answer) => policy.refusal(answer.address)).join("; ");
        return callback(new PrivateAddressError(`${hostname} resolves only to refused addresses: ${why}`) as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
