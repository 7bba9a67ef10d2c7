/**
 * The rules a connection's base_url must meet when it is created or patched (absolute http(s), no user:pass@,
 * no address that reaches a non-public network). The SSRF guard implements it: its address rules need an IP
 * parser, which the domain does not carry.
 */
export interface BaseUrlPolicy {
  /** The normalised URL (trailing slashes of the path stripped), or the broken rule in words. */
  check(raw: string): { readonly ok: true; readonly url: string } | { readonly ok: false; readonly rule: string };
}
