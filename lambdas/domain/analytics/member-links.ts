import type { ExplicitLink } from "./manager-store";

/** How a source user is linked to a member: by the owner, by matching emails, or unlinked by the owner (and so never by email). */
export type LinkKind = "owner" | "email" | "unlinked";

export interface SourceUserLink {
  /** The member's `sub`; null when none. */
  readonly memberId: string | null;
  /** null: no decision and no matching email. */
  readonly kind: LinkKind | null;
}

export interface LinkableUser {
  readonly id: string;
  readonly email: string | null;
  readonly is_active: boolean;
}

/**
 * An email as links compare it: trimmed, lower case, in Unicode's composed
 * form (a CRM and an identity provider may write "é" as one code point or
 * two); null when nothing is left.
 */
export function normalisedEmail(email: string | null | undefined): string | null {
  const trimmed = (email ?? "").normalize("NFC").trim().toLowerCase();
  return trimmed === "" ? null : trimmed;
}

/**
 * Each source user's link, at read time (docs/analytics-api.md, "Links"):
 *
 * 1. The owner's decision wins: linked to a member, or unlinked (which sticks:
 *    no email links that user again).
 * 2. Otherwise a user is linked to the member whose session email equals the
 *    user's email (trimmed, case ignored), unless the owner has linked that
 *    member to a user on this connection.
 * 3. A member is linked to one source user per connection: when their email
 *    matches several users with no decision, the one active user is linked;
 *    with no or several active users, none is (the owner decides).
 */
export function resolveLinks(
  users: readonly LinkableUser[],
  explicit: readonly ExplicitLink[],
  membersByEmail: ReadonlyMap<string, string>,
): ReadonlyMap<string, SourceUserLink> {
  const decided = new Map(explicit.map((link) => [link.sourceUserId, link]));
  const linkedByOwner = new Set(explicit.flatMap((link) => (link.memberId === null ? [] : [link.memberId])));
  const links = new Map<string, SourceUserLink>();
  const candidates = new Map<string, LinkableUser[]>();
  for (const user of users) {
    const decision = decided.get(user.id);
    if (decision !== undefined) {
      links.set(user.id, decision.memberId === null ? { memberId: null, kind: "unlinked" } : { memberId: decision.memberId, kind: "owner" });
      continue;
    }
    links.set(user.id, { memberId: null, kind: null });
    const email = normalisedEmail(user.email);
    const member = email === null ? undefined : membersByEmail.get(email);
    if (member === undefined || linkedByOwner.has(member)) continue;
    candidates.set(member, [...(candidates.get(member) ?? []), user]);
  }
  for (const [member, matched] of candidates) {
    const active = matched.filter((user) => user.is_active);
    const chosen = matched.length === 1 ? matched[0] : active.length === 1 ? active[0] : undefined;
    if (chosen !== undefined) links.set(chosen.id, { memberId: member, kind: "email" });
  }
  return links;
}

/** The source user a member is linked to on the connection, and how; null when none. */
export function linkOfMember(links: ReadonlyMap<string, SourceUserLink>, memberId: string): { readonly sourceUserId: string; readonly kind: LinkKind } | null {
  for (const [sourceUserId, link] of links) {
    if (link.memberId === memberId && link.kind !== null) return { sourceUserId, kind: link.kind };
  }
  return null;
}
