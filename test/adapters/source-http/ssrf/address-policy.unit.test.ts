import ipaddr from "ipaddr.js";
import { describe, expect, test } from "vitest";
import {
  type AddressClass,
  classifyAddress,
  describeAddressClass,
  embeddedIpv4,
  isAllowedAddress,
} from "../../../../lambdas/adapters/source-http/ssrf/address-policy";

const CLOUD = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

const IPV4_CASES: readonly (readonly [string, AddressClass])[] = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "metadata"],
  ["169.254.0.1", "link-local"],
  ["169.254.170.2", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
];

const IPV4_PUBLIC = ["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "93.184.216.34"];

const IPV6_CASES: readonly (readonly [string, AddressClass])[] = [
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "ipv4-mapped"],
  ["::ffff:7f00:1", "ipv4-mapped"],
  ["::ffff:8.8.8.8", "ipv4-mapped"],
  ["::ffff:a9fe:a9fe", "ipv4-mapped"],
  ["::127.0.0.1", "ipv4-compatible"],
  ["::7f00:1", "ipv4-compatible"],
  ["::8.8.8.8", "ipv4-compatible"],
  ["::ffff:0:127.0.0.1", "ipv4-translated"],
  ["64:ff9b::127.0.0.1", "nat64"],
  ["64:ff9b::a00:1", "nat64"],
  ["64:ff9b::169.254.169.254", "nat64"],
  ["64:ff9b:1::1", "nat64"],
  ["fc00::1", "private"],
  ["fd12:3456:789a::1", "private"],
  ["fd00:ec2::254", "metadata"],
  ["fd00:ec2::23", "private"],
  ["fe80::1", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["ff05::1:3", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2002:7f00:1::1", "6to4"],
  ["2002:808:808::1", "6to4"],
  ["2001:0:4136:e378::1", "teredo"],
  ["2001:2::1", "benchmarking"],
  ["2001:10::1", "reserved"],
  ["100::1", "reserved"],
  ["1::", "reserved"],
  ["4000::1", "reserved"],
];

const IPV6_PUBLIC = ["2606:4700:4700::1111", "2a00:1450:4001:81c::200e", "2001:200::1", "64:ff9b::8.8.8.8", "64:ff9b::808:808"];

describe("address classes: IPv4", () => {
  test.each(IPV4_CASES)("%s is %s and refused", (ip, addressClass) => {
    expect(classifyAddress(ip)).toBe(addressClass);
    expect(isAllowedAddress(ip, CLOUD)).toBe(false);
  });

  test.each(IPV4_PUBLIC)("%s is public and allowed", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
    expect(isAllowedAddress(ip, CLOUD)).toBe(true);
  });
});

describe("address classes: IPv6", () => {
  test.each(IPV6_CASES)("%s is %s and refused", (ip, addressClass) => {
    expect(classifyAddress(ip)).toBe(addressClass);
    expect(isAllowedAddress(ip, CLOUD)).toBe(false);
  });

  test.each(IPV6_PUBLIC)("%s is public and allowed", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
    expect(isAllowedAddress(ip, CLOUD)).toBe(true);
  });

  test("brackets and a zone id do not change the class", () => {
    expect(classifyAddress("[::1]")).toBe("loopback");
    expect(classifyAddress("fe80::1%eth0")).toBe("link-local");
    expect(classifyAddress("[fd00:ec2::254%25en0]")).toBe("metadata");
  });

  test("any spelling of an address has the same class", () => {
    expect(classifyAddress("FD00:0EC2:0000:0000:0000:0000:0000:0254")).toBe("metadata");
    expect(classifyAddress("0:0:0:0:0:ffff:127.0.0.1")).toBe("ipv4-mapped");
  });
});

describe("odd IPv4 notations are not addresses here (the URL parser normalises them first)", () => {
  test.each(["0177.0.0.1", "2130706433", "127.1", "0x7f000001", "0x7f.0.0.1", "127.0.1", "localhost", "", "1.2.3.4.5"])(
    "%j is invalid and refused",
    (text) => {
      expect(classifyAddress(text)).toBe("invalid");
      expect(isAllowedAddress(text, LOCAL)).toBe(false);
    },
  );
});

describe("allowLoopback", () => {
  test.each(["127.0.0.1", "127.1.2.3", "::1", "[::1]"])("lets loopback %s through", (ip) => {
    expect(isAllowedAddress(ip, CLOUD)).toBe(false);
    expect(isAllowedAddress(ip, LOCAL)).toBe(true);
  });

  test.each([
    "169.254.169.254",
    "fd00:ec2::254",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "169.254.0.1",
    "fe80::1",
    "fc00::1",
    "0.0.0.0",
    "::",
    "::ffff:127.0.0.1",
    "::127.0.0.1",
    "64:ff9b::127.0.0.1",
    "2002:7f00:1::1",
  ])("never lets %s through", (ip) => {
    expect(isAllowedAddress(ip, LOCAL)).toBe(false);
  });
});

describe("class descriptions", () => {
  test("name the class with an article, for refusal messages", () => {
    expect(describeAddressClass("loopback")).toBe("a loopback address");
    expect(describeAddressClass("metadata")).toBe("a cloud metadata address");
    expect(describeAddressClass("cgnat")).toBe("a carrier-grade NAT address");
    expect(describeAddressClass("ipv4-mapped")).toBe("an IPv4-mapped IPv6 address");
  });
});

// Policy functions only: nothing here opens a socket, so no public address is ever contacted.

/** The first and the last address of a CIDR, as text. */
function rangeEnds(cidr: string): readonly [string, string] {
  const family = ipaddr.IPv4.isValidCIDR(cidr) ? ipaddr.IPv4 : ipaddr.IPv6;
  return [family.networkAddressFromCIDR(cidr).toString(), family.broadcastAddressFromCIDR(cidr).toString()];
}

/** Refused in the cloud at both ends of the range. */
function refusesRange(cidr: string): void {
  for (const ip of rangeEnds(cidr)) expect(isAllowedAddress(ip, CLOUD), ip).toBe(false);
}

const IPV4_SPECIAL_PURPOSE = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "255.255.255.255/32",
];

// Outside 2000::/3 or listed in the registry as not globally reachable (or not a locator).
const IPV6_SPECIAL_PURPOSE = [
  "::/128",
  "::1/128",
  "::ffff:0:0/96",
  "::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "100:0:0:1::/64",
  "2001::/23",
  "2001::/32",
  "2001:2::/48",
  "2001:10::/28",
  "2001:20::/28",
  "2001:30::/28",
  "2001:db8::/32",
  "2002::/16",
  "3fff::/20",
  "5f00::/16",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
];

describe("IANA special-purpose ranges are refused, first and last address", () => {
  test.each(IPV4_SPECIAL_PURPOSE)("IPv4 %s is refused", refusesRange);
  test.each(IPV6_SPECIAL_PURPOSE)("IPv6 %s is refused (only global unicast passes)", refusesRange);
});

describe("ordinary public addresses are allowed by the policy function", () => {
  test.each(["93.184.216.34", "2606:4700::1", "[2606:4700::1]"])("%s is allowed", (ip) => {
    expect(isAllowedAddress(ip, CLOUD)).toBe(true);
  });
});

/** Refused in the cloud and in the local runtime alike. */
function refusedEvenLocally(ip: string): void {
  expect(isAllowedAddress(ip, CLOUD)).toBe(false);
  expect(isAllowedAddress(ip, LOCAL)).toBe(false);
}

describe("IPv6 transition forms are unwrapped and the IPv4 they reach is checked", () => {
  test.each([
    ["::ffff:10.0.0.1", "10.0.0.1"],
    ["::ffff:0:192.168.0.1", "192.168.0.1"],
    ["::10.0.0.1", "10.0.0.1"],
    ["64:ff9b::a00:1", "10.0.0.1"],
    ["2002:a00:1::1", "10.0.0.1"],
    // The Teredo example of RFC 4380 / Wikipedia: server 65.54.227.120, client 192.0.2.45 XOR-obfuscated.
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"],
    ["2606:4700::1", null],
    ["10.0.0.1", null],
  ])("%s reaches %s", (ip, ipv4) => {
    expect(embeddedIpv4(ip)).toBe(ipv4);
  });

  test.each(["64:ff9b::10.0.0.1", "64:ff9b::192.168.1.1", "64:ff9b::169.254.169.254", "64:ff9b::100.64.0.1"])(
    "NAT64 (64:ff9b::/96) of a non-public address %s is refused",
    refusedEvenLocally,
  );

  test("NAT64 of a documentation address is refused", () => refusedEvenLocally("64:ff9b::192.0.2.1"));

  test("NAT64 of loopback is refused even where loopback is allowed", () => {
    expect(isAllowedAddress("64:ff9b::127.0.0.1", LOCAL)).toBe(false);
    expect(isAllowedAddress("64:ff9b::7f00:1", LOCAL)).toBe(false);
  });

  test("NAT64 (64:ff9b::/96) of a public address is allowed: the prefix is globally reachable", () => {
    expect(isAllowedAddress("64:ff9b::93.184.216.34", CLOUD)).toBe(true);
  });

  test("local-use NAT64 (64:ff9b:1::/48) is refused whatever it embeds", () => {
    expect(isAllowedAddress("64:ff9b:1::93.184.216.34", CLOUD)).toBe(false);
    expect(isAllowedAddress("64:ff9b:1::10.0.0.1", CLOUD)).toBe(false);
  });

  test("6to4 of 10.x is refused", () => {
    expect(embeddedIpv4("2002:a00:1::1")).toBe("10.0.0.1");
    expect(classifyAddress("2002:a00:1::1")).toBe("6to4");
    expect(isAllowedAddress("2002:a00:1::1", CLOUD)).toBe(false);
  });

  test("6to4 of a public address is refused too: 2002::/16 is not globally reachable (RFC 7526)", () => {
    expect(isAllowedAddress("2002:5db8:d822::1", CLOUD)).toBe(false);
  });

  test("Teredo of a private client is refused", () => {
    // Client 10.0.0.1 obfuscated is f5ff:fffe; client 192.168.1.10 is 3f57:fef5.
    for (const [ip, client] of [
      ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1"],
      ["2001:0:4136:e378:8000:63bf:3f57:fef5", "192.168.1.10"],
    ] as const) {
      expect(embeddedIpv4(ip)).toBe(client);
      expect(isAllowedAddress(ip, CLOUD)).toBe(false);
    }
  });

  test("Teredo of a public client is refused too: 2001::/32 is not globally reachable", () => {
    // Client 93.184.216.34 obfuscated is a247:27dd.
    expect(embeddedIpv4("2001:0:4136:e378:8000:63bf:a247:27dd")).toBe("93.184.216.34");
    expect(isAllowedAddress("2001:0:4136:e378:8000:63bf:a247:27dd", CLOUD)).toBe(false);
  });

  test.each(["::ffff:10.0.0.1", "::ffff:a00:1", "::10.0.0.1", "::a00:1", "::ffff:0:10.0.0.1"])(
    "IPv4-mapped, -compatible or -translated form %s of a private address is refused",
    refusedEvenLocally,
  );
});

describe("a dotted IPv6 tail is read as the socket reads it", () => {
  test("::a.b.c.d is IPv4-compatible, not IPv4-mapped (ipaddr.js alone would read it as ::ffff:a.b.c.d)", () => {
    expect(classifyAddress("::10.0.0.1")).toBe("ipv4-compatible");
    expect(classifyAddress("::10.0.0.1")).toBe(classifyAddress("::a00:1"));
  });

  test("::0.0.0.1 is ::1 and ::0.0.0.0 is ::", () => {
    expect(classifyAddress("::0.0.0.1")).toBe("loopback");
    expect(classifyAddress("::0.0.0.0")).toBe("unspecified");
  });

  test.each(["::ffff:0177.0.0.1", "::ffff:127.1", "64:ff9b::0x7f.0.0.1"])(
    "%s (a tail not in dotted decimal) is invalid",
    (ip) => {
      expect(classifyAddress(ip)).toBe("invalid");
      expect(isAllowedAddress(ip, LOCAL)).toBe(false);
    },
  );
});
