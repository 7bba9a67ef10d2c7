import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { classifyAddress, describeAddressClass, isAllowedAddress, type AddressPolicyOptions } from "./address-policy";
import { SourceAddressRefusedError } from "../../../domain/source-contract/source-address-refused-error";

export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/** Every address a host name resolves to (the seam tests use to play DNS). */
export type ResolveAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver, all addresses, in the resolver's order. */
export const resolveAllAddresses: ResolveAll = (hostname) => dnsLookup(hostname, { all: true });

/**
 * Resolves every address of a host and refuses the host if ANY of them is not
 * allowed: a name that mixes a public and a private address is refused whole,
 * so which one the socket would pick never matters.
 */
export async function resolveCheckedAddresses(
  hostname: string,
  resolve: ResolveAll,
  options: AddressPolicyOptions,
): Promise<readonly ResolvedAddress[]> {
  const addresses = await resolve(hostname);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`DNS lookup of ${hostname} returned no address`), { code: "ENOTFOUND" });
  }
  for (const { address } of addresses) {
    if (!isAllowedAddress(address, options)) {
      const reason = describeAddressClass(classifyAddress(address));
      throw new SourceAddressRefusedError(`host ${hostname} resolves to ${reason} (${address})`);
    }
  }
  return addresses;
}

/**
 * A `lookup` for `net.connect`/`tls.connect`: the socket connects only to an
 * address this function checked and returned, so the check and the connection
 * see the same DNS answer (no rebinding in between). Node calls it with
 * `all: true` when it races address families, and without otherwise.
 * `net.connect` does not call it for an IP literal: the caller checks those.
 */
export function createPinnedLookup(resolve: ResolveAll, options: AddressPolicyOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveCheckedAddresses(hostname, resolve, options).then(
      (checked) => {
        const family = familyNumber(lookupOptions.family);
        const wanted = family === 0 ? checked : checked.filter((entry) => entry.family === family);
        const first = wanted[0];
        if (first === undefined) {
          const error = Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: "ENOTFOUND" });
          callback(error, "", undefined);
        } else if (lookupOptions.all === true) {
          callback(null, wanted.map((entry) => ({ address: entry.address, family: entry.family })));
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", undefined),
    );
  };
}

function familyNumber(family: number | string | undefined): number {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return 0;
}
