import { isIP } from "node:net";

/**
 * What an IP address is, as far as fetching a customer's base_url from inside
 * the cloud goes. Only "public" is reachable by default; "loopback" (127/8 and
 * ::1 written directly, never embedded in another form) only when the local
 * runtime allows it. Everything else is refused.
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
  let text = ip.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  switch (isIP(text)) {
    case 4:
      return classifyIpv4(parseIpv4(text));
    case 6:
      return classifyIpv6(parseIpv6(text));
    default:
      return "invalid";
  }
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

type Ipv4Range = readonly [network: string, prefix: number, addressClass: AddressClass];
type Ipv6Range = readonly [network: string, prefix: number, addressClass: AddressClass];

// Most specific first: the first match wins.
const IPV4_RANGES: readonly Ipv4Range[] = [
  ["169.254.169.254", 32, "metadata"],
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

// Only 2000::/3 is global unicast; anything outside it and not listed is "reserved".
const IPV6_RANGES: readonly Ipv6Range[] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fd00:ec2::254", 128, "metadata"],
  ["::ffff:0:0", 96, "ipv4-mapped"],
  ["::ffff:0:0:0", 96, "ipv4-translated"],
  ["::", 96, "ipv4-compatible"],
  ["64:ff9b:1::", 48, "nat64"],
  ["100::", 64, "reserved"],
  ["fc00::", 7, "private"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "private"],
  ["ff00::", 8, "multicast"],
  ["2001::", 32, "teredo"],
  ["2001:2::", 48, "benchmarking"],
  ["2001::", 23, "reserved"],
  ["2001:db8::", 32, "documentation"],
  ["2002::", 16, "6to4"],
  ["3fff::", 20, "documentation"],
];

const NAT64_PREFIX = parseIpv6("64:ff9b::");
const GLOBAL_UNICAST = parseIpv6("2000::");

const IPV4_TABLE = IPV4_RANGES.map(([network, prefix, addressClass]) => ({
  network: parseIpv4(network),
  prefix,
  addressClass,
}));
const IPV6_TABLE = IPV6_RANGES.map(([network, prefix, addressClass]) => ({
  network: parseIpv6(network),
  prefix,
  addressClass,
}));

function classifyIpv4(value: number): AddressClass {
  for (const range of IPV4_TABLE) {
    if (inIpv4Range(value, range.network, range.prefix)) return range.addressClass;
  }
  return "public";
}

function classifyIpv6(value: bigint): AddressClass {
  for (const range of IPV6_TABLE) {
    if (inIpv6Range(value, range.network, range.prefix)) return range.addressClass;
  }
  // 64:ff9b::/96: the NAT64 gateway connects to the embedded IPv4, so that one decides.
  if (inIpv6Range(value, NAT64_PREFIX, 96)) {
    return classifyIpv4(Number(value & 0xffffffffn)) === "public" ? "public" : "nat64";
  }
  return inIpv6Range(value, GLOBAL_UNICAST, 3) ? "public" : "reserved";
}

function inIpv4Range(value: number, network: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const shift = 32 - prefix;
  return value >>> shift === network >>> shift;
}

function inIpv6Range(value: bigint, network: bigint, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return value >> shift === network >> shift;
}

/** Dotted decimal (already checked by isIP) as an unsigned 32-bit number. */
function parseIpv4(text: string): number {
  return text.split(".").reduce((value, part) => value * 256 + Number(part), 0);
}

/** Any IPv6 text form (already checked by isIP, no zone) as a 128-bit number. */
function parseIpv6(text: string): bigint {
  let groupsText = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseIpv4(last);
    tail.push(v4 >>> 16, v4 & 0xffff);
    groupsText = text.slice(0, lastColon + 1);
    if (!groupsText.endsWith("::")) groupsText = groupsText.slice(0, -1);
  }
  const split = (part: string): number[] => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  let groups: number[];
  const gap = groupsText.indexOf("::");
  if (gap === -1) {
    groups = [...split(groupsText), ...tail];
  } else {
    const head = split(groupsText.slice(0, gap));
    const rest = [...split(groupsText.slice(gap + 2)), ...tail];
    groups = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}
