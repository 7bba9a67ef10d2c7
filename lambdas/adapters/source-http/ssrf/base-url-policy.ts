import type { BaseUrlPolicy } from "../../../domain/core/ports/base-url-policy";
import type { AddressClass } from "./address-policy";
import { checkHost, type HostPolicyOptions } from "./host-policy";

export type BaseUrlCheck =
  /** `url` is the parser's normalised form, trailing slashes of the path stripped. */
  | { readonly ok: true; readonly url: string }
  /** `rule` is the broken rule in words; `addressClass` is set when the host was refused. */
  | { readonly ok: false; readonly rule: string; readonly addressClass?: AddressClass };

/**
 * The rules a base_url must meet when a connection is created or patched:
 * an absolute http(s) URL, no user:pass@, a host, and no IP literal (in any
 * notation) or well-known name that reaches loopback, private, link-local,
 * metadata or other non-public addresses. A DNS name passes here: what it
 * resolves to is checked at connect time by the guarded fetch.
 */
export function checkBaseUrl(raw: string, options: HostPolicyOptions, field = "base_url"): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The URL parser refuses zone ids (http://[fe80::1%25eth0]/); say why.
    if (/\[[^\]]*%/.test(raw)) return { ok: false, rule: `${field} must not contain an IPv6 zone id` };
    return { ok: false, rule: `${field} must be an absolute http or https URL` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, rule: `${field} must be an absolute http or https URL` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, rule: `${field} must not contain a user name or password` };
  }
  if (url.hostname === "") return { ok: false, rule: `${field} must have a host` };
  const host = checkHost(url.hostname, options);
  if (!host.ok) return { ok: false, rule: `${field} points to ${host.reason}`, addressClass: host.addressClass };
  const path = url.pathname.replace(/\/+$/, "");
  return { ok: true, url: `${url.protocol}//${url.host}${path}${url.search}${url.hash}` };
}

/** The onboarding API's base_url rules, with loopback let through or not (local runtime only). */
export function baseUrlPolicy(options: HostPolicyOptions): BaseUrlPolicy {
  return { check: (raw) => checkBaseUrl(raw, options) };
}

/**
 * A webhook endpoint's URL: the base_url rules under the same guard (loopback only where sources may use it), and
 * https wherever loopback is refused (the deployed stack): a delivery is signed, not encrypted, so it must not
 * cross the internet in clear.
 */
export function webhookUrlPolicy(options: HostPolicyOptions): BaseUrlPolicy {
  return {
    check: (raw) => {
      const checked = checkBaseUrl(raw, options, "url");
      if (checked.ok && !options.allowLoopback && !checked.url.startsWith("https:")) return { ok: false, rule: "url must be an https URL" };
      return checked.ok ? { ok: true, url: checked.url } : { ok: false, rule: checked.rule };
    },
  };
}
