import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An IP literal as a socket reads it: dotted-decimal IPv4 or any IPv6 text
 * form, with or without brackets or a zone id; null for anything else.
 * `net.isIP` decides what is a literal because `net.connect` decides the same
 * way: a text it refuses is looked up in DNS, where the pinned lookup checks
 * the answer. So the octal, hex and short IPv4 forms ipaddr.js would accept
 * (0177.0.0.1, 127.1, and 0177 in an IPv6 tail) are not read as addresses the
 * socket would never connect to; the URL parser has normalised them upstream.
 */
export function parseIpLiteral(text: string): IpAddress | null {
  let literal = text.trim();
  if (literal.startsWith("[") && literal.endsWith("]")) literal = literal.slice(1, -1);
  const zone = literal.indexOf("%");
  if (zone !== -1) literal = literal.slice(0, zone);
  try {
    switch (isIP(literal)) {
      case 4:
        return ipaddr.IPv4.parse(literal);
      case 6:
        return ipaddr.IPv6.parse(withHexTail(literal));
      default:
        return null;
    }
  } catch {
    // A form Node accepts and ipaddr.js does not: refused as unreadable, never guessed at.
    return null;
  }
}

/**
 * ipaddr.js reads "::a.b.c.d" as "::ffff:a.b.c.d" (deliberately, since its
 * PR #142), which is another address; writing the dotted tail as two hex
 * groups first keeps the 128 bits the socket would use.
 */
function withHexTail(literal: string): string {
  const lastColon = literal.lastIndexOf(":");
  const tail = literal.slice(lastColon + 1);
  if (!tail.includes(".")) return literal;
  const groups = ipaddr.IPv4.parse(tail).toIPv4MappedAddress().parts.slice(6);
  return literal.slice(0, lastColon + 1) + groups.map((group) => group.toString(16)).join(":");
}
