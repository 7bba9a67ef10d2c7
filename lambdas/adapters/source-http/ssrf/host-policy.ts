import { isIP } from "node:net";
import { type AddressClass, classifyAddress, describeAddressClass, isAllowedAddress } from "./address-policy";

export interface HostPolicyOptions {
  /** Lets 127.0.0.0/8, ::1, `localhost` and `*.localhost` through (local runtime only). */
  readonly allowLoopback: boolean;
}

export type HostCheck =
  /** `ip` is the literal address when the host is one; null for a DNS name, to be checked at connect time. */
  | { readonly ok: true; readonly ip: string | null }
  | {
      readonly ok: false;
      readonly addressClass: AddressClass;
      /** "a loopback address", "a cloud metadata host name": completes "points to ...". */
      readonly reason: string;
    };

/** Names that reach the instance itself or the cloud's metadata service without looking like an address. */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** The last label of a host that the URL parser would read as an IPv4 number. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|\d+)$/i;

/**
 * The host rules of a base_url, on a WHATWG `URL.hostname`.
 * The URL parser already turns every IPv4 notation (0177.0.0.1, 0x7f.1,
 * 2130706433, 127.1) into dotted decimal and compresses IPv6, so an IP literal is
 * classified as the address it resolves to. A numeric-looking host the parser
 * left alone (only when called with a raw host) is re-read the parser's way.
 */
export function checkHost(hostname: string, options: HostPolicyOptions): HostCheck {
  const host = hostname.trim().toLowerCase();
  if (host.startsWith("[") || host.includes(":")) return checkAddress(host, options);
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (isIP(name) === 4) return checkAddress(name, options);
  if (name === "") return { ok: false, addressClass: "invalid", reason: "an empty host" };
  const lastLabel = name.slice(name.lastIndexOf(".") + 1);
  if (NUMERIC_LABEL.test(lastLabel)) {
    const reparsed = reparseIpv4(name);
    return reparsed === null
      ? { ok: false, addressClass: "invalid", reason: "an IP address in an unreadable notation" }
      : checkAddress(reparsed, options);
  }
  if (name === "localhost" || name.endsWith(".localhost")) {
    if (options.allowLoopback) return { ok: true, ip: null };
    return { ok: false, addressClass: "loopback", reason: "a loopback host name" };
  }
  if (METADATA_NAMES.has(name)) return { ok: false, addressClass: "metadata", reason: "a cloud metadata host name" };
  return { ok: true, ip: null };
}

function checkAddress(ip: string, options: HostPolicyOptions): HostCheck {
  const addressClass = classifyAddress(ip);
  if (isAllowedAddress(ip, options)) return { ok: true, ip: ip.replace(/^\[|\]$/g, "") };
  return { ok: false, addressClass, reason: describeAddressClass(addressClass) };
}

/** The dotted-decimal IPv4 the URL parser reads a numeric host as, or null. */
function reparseIpv4(host: string): string | null {
  try {
    const { hostname } = new URL(`http://${host}/`);
    return isIP(hostname) === 4 ? hostname : null;
  } catch {
    return null;
  }
}
