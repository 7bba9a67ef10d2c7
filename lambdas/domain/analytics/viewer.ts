import { readAllRecords } from "../records/read-all-records";
import type { StoredConnection } from "../core/connection";
import { OWNER_ROLE, type Session } from "../onboarding/auth/session-claims";
import type { OnboardingDeps } from "../onboarding/onboarding-deps";
import type { ApiDeps } from "./analytics-deps";
import { linkOfMember, normalisedEmail, resolveLinks, type LinkableUser, type LinkKind, type SourceUserLink } from "./member-links";

/** The stored /users of a connection, as links read them. */
export async function linkableUsers(deps: Pick<OnboardingDeps, "records">, connectionId: string): Promise<(LinkableUser & { readonly doc: Record<string, unknown> })[]> {
  return (await readAllRecords(deps.records, connectionId, "users")).flatMap((doc) =>
    typeof doc["id"] === "string"
      ? [{ id: doc["id"], email: typeof doc["email"] === "string" ? doc["email"] : null, is_active: doc["is_active"] !== false, doc }]
      : [],
  );
}

/** Every source user's link on a connection (member-links.ts), read now: the users, the owner's decisions, the members seen. */
export async function linksOf(
  deps: Pick<ApiDeps, "records" | "managers">,
  account: string,
  connection: StoredConnection,
): Promise<{ readonly users: Awaited<ReturnType<typeof linkableUsers>>; readonly links: ReadonlyMap<string, SourceUserLink> }> {
  const [users, explicit, members] = await Promise.all([
    linkableUsers(deps, connection.id),
    deps.managers.listLinks(connection.id),
    deps.managers.membersByEmail(account),
  ]);
  return { users, links: resolveLinks(users, explicit, members) };
}

/**
 * Who is asking, for the analytics routes: the owner and ROP see every row;
 * a MOP sees the row of the source user they are linked to. A session with an
 * email is remembered first (its email names that member from then on), so a
 * MOP is linked by email from their first request.
 */
export async function rememberMember(deps: Pick<ApiDeps, "managers">, session: Session): Promise<void> {
  const email = normalisedEmail(session.email);
  if (email !== null) await deps.managers.recordMember(session.businessAccountId, session.userId, email);
}

export const seesEveryRow = (session: Session): boolean => session.role === OWNER_ROLE || session.role === "ROP";

/** The session's own link on a connection; null when it has none. */
export async function linkOfSession(
  deps: Pick<ApiDeps, "records" | "managers">,
  session: Session,
  connection: StoredConnection,
): Promise<{ readonly sourceUserId: string; readonly kind: LinkKind } | null> {
  const { links } = await linksOf(deps, session.businessAccountId, connection);
  return linkOfMember(links, session.userId);
}
