import { describe, expect, test } from "vitest";
import { checkBaseUrl } from "../../../../lambdas/adapters/source-http/ssrf/base-url-policy";
import { checkHost } from "../../../../lambdas/adapters/source-http/ssrf/host-policy";

const CLOUD = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

function rule(raw: string, options = CLOUD): string {
  const result = checkBaseUrl(raw, options);
  if (result.ok) throw new Error(`expected ${raw} to be refused, got ${result.url}`);
  return result.rule;
}

describe("the URL parser resolves odd IPv4 notations (relied on by the policy)", () => {
  test.each([
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://127.0.1/", "127.0.0.1"],
    ["http://0x7f000001/", "127.0.0.1"],
    ["http://0x7f.0.0.1/", "127.0.0.1"],
    ["http://%31%32%37.0.0.1/", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["http://[::127.0.0.1]/", "[::7f00:1]"],
  ])("%s has hostname %s", (raw, hostname) => {
    expect(new URL(raw).hostname).toBe(hostname);
  });
});

describe("base_url: loopback in any notation is refused", () => {
  test.each([
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/api",
    "http://0177.0.0.1/",
    "http://2130706433/",
    "http://127.1/",
    "http://127.0.1/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
  ])("%s", (raw) => {
    expect(rule(raw)).toBe("base_url points to a loopback address");
  });
});

describe("base_url: non-public address classes are refused with the class in the rule", () => {
  test.each([
    ["http://169.254.169.254/latest/meta-data", "a cloud metadata address"],
    ["http://[fd00:ec2::254]/", "a cloud metadata address"],
    ["http://100.64.0.1/", "a carrier-grade NAT address"],
    ["http://10.0.0.1/", "a private address"],
    ["http://172.16.0.1/", "a private address"],
    ["http://192.168.1.1/", "a private address"],
    ["http://0xc0a80101/", "a private address"],
    ["http://169.254.1.1/", "a link-local address"],
    ["http://[fe80::1]/", "a link-local address"],
    ["http://[fc00::1]/", "a private address"],
    ["http://0.0.0.0/", "an unspecified address"],
    ["http://0/", "an unspecified address"],
    ["http://[::]/", "an unspecified address"],
    ["http://224.0.0.1/", "a multicast address"],
    ["http://[ff02::1]/", "a multicast address"],
    ["http://255.255.255.255/", "a broadcast address"],
    ["http://240.0.0.1/", "a reserved address"],
    ["http://192.0.2.1/", "a documentation address"],
    ["http://[2001:db8::1]/", "a documentation address"],
    ["http://198.18.0.1/", "a benchmarking address"],
    ["http://[::ffff:127.0.0.1]/", "an IPv4-mapped IPv6 address"],
    ["http://[::ffff:7f00:1]/", "an IPv4-mapped IPv6 address"],
    ["http://[::ffff:8.8.8.8]/", "an IPv4-mapped IPv6 address"],
    ["http://[::127.0.0.1]/", "an IPv4-compatible IPv6 address"],
    ["http://[64:ff9b::10.0.0.1]/", "a NAT64 address of a non-public IPv4 address"],
    ["http://[2002:7f00:1::]/", "a 6to4 address"],
  ])("%s points to %s", (raw, reason) => {
    expect(rule(raw)).toBe(`base_url points to ${reason}`);
    expect(rule(raw, LOCAL)).toBe(`base_url points to ${reason}`);
  });

  test("the refusal carries the address class", () => {
    expect(checkBaseUrl("http://169.254.169.254/", CLOUD)).toEqual({
      ok: false,
      rule: "base_url points to a cloud metadata address",
      addressClass: "metadata",
    });
  });

  test("an IPv6 zone id is refused (the URL parser does not accept one)", () => {
    expect(rule("http://[fe80::1%25eth0]/")).toBe("base_url must not contain an IPv6 zone id");
  });
});

describe("base_url: host names", () => {
  test.each(["http://localhost/", "http://LOCALHOST:3000/", "http://localhost./", "http://api.localhost/"])(
    "%s is a loopback host name",
    (raw) => {
      expect(rule(raw)).toBe("base_url points to a loopback host name");
    },
  );

  test.each([
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata.google.internal./",
    "http://metadata/",
    "http://instance-data/latest/",
    "http://instance-data.ec2.internal/",
  ])("%s is a cloud metadata host name, refused even with allowLoopback", (raw) => {
    expect(rule(raw)).toBe("base_url points to a cloud metadata host name");
    expect(rule(raw, LOCAL)).toBe("base_url points to a cloud metadata host name");
  });

  test.each(["https://crm.example.com/api", "http://10.0.0.1.nip.io/", "https://localhost.example.com/"])(
    "a plain DNS name passes here (checked at connect time): %s",
    (raw) => {
      expect(checkBaseUrl(raw, CLOUD).ok).toBe(true);
    },
  );
});

describe("base_url: shape", () => {
  test.each(["crm.example.com", "/api", "", "   ", "ftp://crm.example.com/", "file:///etc/passwd", "javascript:alert(1)"])(
    "%j is not an absolute http(s) URL",
    (raw) => {
      expect(rule(raw)).toBe("base_url must be an absolute http or https URL");
    },
  );

  test.each(["https://user:pass@crm.example.com/", "https://user@crm.example.com/", "https://:pass@crm.example.com/"])(
    "%s carries credentials",
    (raw) => {
      expect(rule(raw)).toBe("base_url must not contain a user name or password");
    },
  );

  test.each([
    ["https://crm.example.com/api/v1/", "https://crm.example.com/api/v1"],
    ["https://crm.example.com/api//", "https://crm.example.com/api"],
    ["https://crm.example.com", "https://crm.example.com"],
    ["https://CRM.Example.com:443/", "https://crm.example.com"],
    ["  https://crm.example.com:8443/x/  ", "https://crm.example.com:8443/x"],
    ["http://8.8.8.8/api/", "http://8.8.8.8/api"],
    ["http://[2606:4700:4700::1111]/", "http://[2606:4700:4700::1111]"],
  ])("%j is accepted as %s (normalised, trailing slashes stripped)", (raw, url) => {
    expect(checkBaseUrl(raw, CLOUD)).toEqual({ ok: true, url });
  });
});

describe("base_url: allowLoopback", () => {
  test.each([
    ["http://127.0.0.1:3000/", "http://127.0.0.1:3000"],
    ["http://0177.0.0.1/", "http://127.0.0.1"],
    ["http://[::1]:3000/api/", "http://[::1]:3000/api"],
    ["http://localhost:3000", "http://localhost:3000"],
  ])("lets %s through", (raw, url) => {
    expect(checkBaseUrl(raw, LOCAL)).toEqual({ ok: true, url });
  });

  test.each(["http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://[::ffff:127.0.0.1]/"])(
    "still refuses %s",
    (raw) => {
      expect(checkBaseUrl(raw, LOCAL).ok).toBe(false);
    },
  );
});

describe("host rules on a raw host (a notation the URL parser would not have seen)", () => {
  test.each([
    ["0177.0.0.1", "loopback"],
    ["2130706433", "loopback"],
    ["127.1", "loopback"],
    ["0x7f000001", "loopback"],
    ["0xa9.0xfe.0xa9.0xfe", "metadata"],
  ])("%s is read the parser's way: %s", (host, addressClass) => {
    expect(checkHost(host, CLOUD)).toMatchObject({ ok: false, addressClass });
  });

  test("a numeric host no parser reads as IPv4 is refused", () => {
    expect(checkHost("1.2.3.4.5", CLOUD)).toMatchObject({ ok: false, addressClass: "invalid" });
    expect(checkHost("09.1", CLOUD)).toMatchObject({ ok: false, addressClass: "invalid" });
  });

  test("an IP literal comes back as the address checked; a name as null", () => {
    expect(checkHost("[::1]", LOCAL)).toEqual({ ok: true, ip: "::1" });
    expect(checkHost("8.8.8.8", CLOUD)).toEqual({ ok: true, ip: "8.8.8.8" });
    expect(checkHost("crm.example.com", CLOUD)).toEqual({ ok: true, ip: null });
  });
});
