import ipaddr from "ipaddr.js";
import { parseIpLiteral } from "./ip-literal";

/**
 * What an IP address is, as far as fetching a customer's base_url from inside
 * the cloud goes. Only "public" is reachable by default; "loopback" (127/8 and
 * ::1 written directly, never embedded in another form) only when the local
 * runtime allows it. Everything else is refused. An IPv6 transition form
 * (IPv4-mapped, NAT64, 6to4, Teredo...) keeps its own class: it is "public"
 * only when its prefix is globally reachable and the IPv4 it reaches is public.
 */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "ipv4-mapped"
  | "ipv4-compatible"
  | "ipv4-translated"
  | "nat64"
  | "6to4"
  | "teredo"
  | "invalid";

export interface AddressPolicyOptions {
  /** Lets 127.0.0.0/8 and ::1 through (local runtime only; off in the cloud). */
  readonly allowLoopback: boolean;
}

/** Whether a connection to this address may be made. */
export function isAllowedAddress(ip: string, options: AddressPolicyOptions): boolean {
  const addressClass = classifyAddress(ip);
  return addressClass === "public" || (addressClass === "loopback" && options.allowLoopback);
}

/** "a loopback address", "an IPv4-mapped IPv6 address": for refusal messages. */
export function describeAddressClass(addressClass: AddressClass): string {
  return ADDRESS_CLASS_WORDS[addressClass];
}

/**
 * The class of an IP address: dotted-decimal IPv4 or any IPv6 text form, with
 * or without brackets or a zone id. Anything `net.isIP` does not accept (an
 * octal, hex or short IPv4 form among them) is "invalid", and so refused.
 */
export function classifyAddress(ip: string): AddressClass {
  const address = parseIpLiteral(ip);
  if (address === null) return "invalid";
  return address instanceof ipaddr.IPv4 ? classifyIpv4(address) : classifyIpv6(address);
}

/**
 * The IPv4 address an IPv6 transition form carries traffic to (IPv4-mapped,
 * -compatible and -translated, NAT64 /96, 6to4, and a Teredo client
 * de-obfuscated), or null when the address is no such form.
 */
export function embeddedIpv4(ip: string): string | null {
  const address = parseIpLiteral(ip);
  if (!(address instanceof ipaddr.IPv6)) return null;
  const unwrap = ipv6RangeOf(address)?.unwrap;
  return unwrap === undefined ? null : unwrap(address).toString();
}

const ADDRESS_CLASS_WORDS: Readonly<Record<AddressClass, string>> = {
  public: "a public address",
  loopback: "a loopback address",
  private: "a private address",
  "link-local": "a link-local address",
  cgnat: "a carrier-grade NAT address",
  metadata: "a cloud metadata address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  documentation: "a documentation address",
  benchmarking: "a benchmarking address",
  reserved: "a reserved address",
  "ipv4-mapped": "an IPv4-mapped IPv6 address",
  "ipv4-compatible": "an IPv4-compatible IPv6 address",
  "ipv4-translated": "an IPv4-translated IPv6 address",
  nat64: "a NAT64 address of a non-public IPv4 address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
  invalid: "an invalid address",
};


interface Ipv4Range {
  readonly range: [ipaddr.IPv4, number];
  readonly addressClass: AddressClass;
}

interface Ipv6Range {
  readonly range: [ipaddr.IPv6, number];
  readonly addressClass: AddressClass;
  /** A transition form: the IPv4 address its traffic goes to. */
  readonly unwrap?: (address: ipaddr.IPv6) => ipaddr.IPv4;
  /** The transition prefix is itself globally reachable (IANA registry), so what it embeds decides. */
  readonly routable?: true;
}

/** The 4 bytes at `offset`, each XORed with `mask` (Teredo obfuscates its client address). */
const ipv4At =
  (offset: number, mask = 0) =>
  (address: ipaddr.IPv6): ipaddr.IPv4 =>
    new ipaddr.IPv4(
      address
        .toByteArray()
        .slice(offset, offset + 4)
        .map((byte) => byte ^ mask),
    );
const LAST_32_BITS = ipv4At(12);

const v4 = (cidr: string, addressClass: AddressClass): Ipv4Range => ({
  range: ipaddr.IPv4.parseCIDR(cidr),
  addressClass,
});
type Transition = Pick<Ipv6Range, "unwrap" | "routable">;
const v6 = (cidr: string, addressClass: AddressClass, transition: Transition = {}): Ipv6Range => ({
  range: ipaddr.IPv6.parseCIDR(cidr),
  addressClass,
  ...transition,
});

// The IANA special-purpose registries, most specific first: the first match wins.
const IPV4_RANGES: readonly Ipv4Range[] = [
  v4("169.254.169.254/32", "metadata"),
  v4("255.255.255.255/32", "broadcast"),
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "cgnat"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "reserved"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "reserved"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
];

// Only 2000::/3 is global unicast; anything outside it and not listed is "reserved".
const IPV6_RANGES: readonly Ipv6Range[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("fd00:ec2::254/128", "metadata"),
  v6("::ffff:0:0/96", "ipv4-mapped", { unwrap: LAST_32_BITS }),
  v6("::ffff:0:0:0/96", "ipv4-translated", { unwrap: LAST_32_BITS }),
  v6("::/96", "ipv4-compatible", { unwrap: LAST_32_BITS }),
  v6("64:ff9b::/96", "nat64", { unwrap: LAST_32_BITS, routable: true }),
  // Local-use NAT64 (RFC 8215): not globally reachable, and the IPv4 may sit at any RFC 6052 offset.
  v6("64:ff9b:1::/48", "nat64"),
  v6("100::/64", "reserved"),
  v6("fc00::/7", "private"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "private"),
  v6("ff00::/8", "multicast"),
  v6("2001::/32", "teredo", { unwrap: ipv4At(12, 0xff) }),
  v6("2001:2::/48", "benchmarking"),
  v6("2001::/23", "reserved"),
  v6("2001:db8::/32", "documentation"),
  v6("2002::/16", "6to4", { unwrap: ipv4At(2) }),
  v6("3fff::/20", "documentation"),
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

function classifyIpv4(address: ipaddr.IPv4): AddressClass {
  return IPV4_RANGES.find(({ range }) => address.match(range))?.addressClass ?? "public";
}

function classifyIpv6(address: ipaddr.IPv6): AddressClass {
  const entry = ipv6RangeOf(address);
  if (entry === undefined) return address.match(GLOBAL_UNICAST) ? "public" : "reserved";
  if (entry.unwrap === undefined) return entry.addressClass;
  // A transition form reaches its embedded IPv4, so it passes only where the
  // prefix is routable AND that IPv4 passes; embedded loopback never does.
  const embedded = classifyIpv4(entry.unwrap(address));
  return entry.routable === true && embedded === "public" ? "public" : entry.addressClass;
}

function ipv6RangeOf(address: ipaddr.IPv6): Ipv6Range | undefined {
  return IPV6_RANGES.find(({ range }) => address.match(range));
}
