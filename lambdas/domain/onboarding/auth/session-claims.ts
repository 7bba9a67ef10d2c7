import * as v from "valibot";
import { TEXT_LIMITS } from "../../core/limits";

/**
 * The owner session token's claims, named here and nowhere else.
 *
 * In AWS the HTTP API's JWT authorizer verifies the token (signature, issuer,
 * audience, expiry) and hands the handler the payload as
 * `event.requestContext.authorizer.jwt.claims`, every value coerced to a
 * string. Locally the runtime verifies the token the same way and puts the
 * same object in the same field. Handlers never verify signatures: they parse
 * that object with SessionClaimsSchema.
 */
export const SESSION_CLAIM = {
  /** custom claim: the workspace the session belongs to */
  businessAccountId: "business_account_id",
  /** registered claim: the user */
  userId: "sub",
  /** custom claim: one of SESSION_ROLES */
  role: "role",
  /** standard OIDC claim, optional: links a member to a CRM user with the same email (docs/analytics-api.md) */
  email: "email",
  /** standard OIDC claim, optional: `false` means the email is not to be trusted, so it links nothing */
  emailVerified: "email_verified",
} as const;

/** Every role a session can carry; only the owner may use the onboarding API. */
export const SESSION_ROLES = ["owner", "ROP", "MOP"] as const;
export type SessionRole = (typeof SESSION_ROLES)[number];
export const OWNER_ROLE = "owner" satisfies SessionRole;

const claimText = (claim: string) =>
  v.pipe(
    v.string(`claim ${claim} must be a string`),
    v.nonEmpty(`claim ${claim} must not be empty`),
    v.maxLength(TEXT_LIMITS.id, `claim ${claim} must be at most ${TEXT_LIMITS.id} characters`),
  );

/**
 * Parses the authorizer's claims object (values as strings, as API Gateway
 * passes them) into a Session. Other claims (iss, aud, exp, ...) are ignored:
 * the authorizer has already checked them. Roles are matched exactly.
 */
export const SessionClaimsSchema = v.pipe(
  v.object({
    [SESSION_CLAIM.businessAccountId]: claimText(SESSION_CLAIM.businessAccountId),
    [SESSION_CLAIM.userId]: claimText(SESSION_CLAIM.userId),
    [SESSION_CLAIM.role]: v.picklist(SESSION_ROLES, `claim ${SESSION_CLAIM.role} must be one of ${SESSION_ROLES.join(", ")}`),
    [SESSION_CLAIM.email]: v.optional(v.unknown()),
    [SESSION_CLAIM.emailVerified]: v.optional(v.unknown()),
  }),
  v.transform(
    (claims): Session => ({
      businessAccountId: claims[SESSION_CLAIM.businessAccountId],
      userId: claims[SESSION_CLAIM.userId],
      role: claims[SESSION_CLAIM.role],
      email: sessionEmail(claims[SESSION_CLAIM.email], claims[SESSION_CLAIM.emailVerified]),
    }),
  ),
);

/**
 * The email a session vouches for: the claim as sent (trimmed), when it is a
 * line of text of at most TEXT_LIMITS.email characters and the provider has
 * not said it is unverified (`email_verified` false; API Gateway passes it as
 * the string "false"). Anything else is no email: the session still stands,
 * it only links no CRM user by email.
 */
function sessionEmail(email: unknown, verified: unknown): string | null {
  if (verified === false || verified === "false") return null;
  if (typeof email !== "string") return null;
  const trimmed = email.trim();
  return trimmed.length > 0 && trimmed.length <= TEXT_LIMITS.email && /^\P{Cc}+$/u.test(trimmed) ? trimmed : null;
}

export interface Session {
  readonly businessAccountId: string;
  readonly userId: string;
  readonly role: SessionRole;
  /** The session's email (the OIDC `email` claim), or null when it has none it vouches for. */
  readonly email: string | null;
}

export type SessionClaimsInput = v.InferInput<typeof SessionClaimsSchema>;
