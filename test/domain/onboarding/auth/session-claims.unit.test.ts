import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { SESSION_CLAIM, SESSION_ROLES, SessionClaimsSchema } from "../../../../lambdas/domain/onboarding/auth/session-claims";

/** As API Gateway hands them over: every value a string, registered claims included. */
const authorizerClaims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: "https://idp.example.com/",
  aud: "crm-integration-api",
  iat: "1760000000",
  exp: "1760043200",
  sub: "user-7",
  business_account_id: "acme",
  role: "owner",
  ...overrides,
});

describe("SessionClaimsSchema", () => {
  test("claim names: business_account_id, sub, role, and the standard email and email_verified", () => {
    expect(SESSION_CLAIM).toEqual({ businessAccountId: "business_account_id", userId: "sub", role: "role", email: "email", emailVerified: "email_verified" });
  });

  test("accepts owner, ROP and MOP and reads the session from the authorizer's string claims", () => {
    for (const role of ["owner", "ROP", "MOP"] as const) {
      expect(v.parse(SessionClaimsSchema, authorizerClaims({ role }))).toEqual({
        businessAccountId: "acme",
        userId: "user-7",
        role,
        email: null,
      });
    }
    expect(SESSION_ROLES).toEqual(["owner", "ROP", "MOP"]);
  });

  test("rejects any other role, matched exactly (no case folding)", () => {
    for (const role of ["admin", "Owner", "OWNER", "rop", "mop", "", " owner", undefined, 1]) {
      expect(v.safeParse(SessionClaimsSchema, authorizerClaims({ role })).success).toBe(false);
    }
  });

  test("rejects a missing or empty business_account_id", () => {
    const { business_account_id: _, ...withoutAccount } = authorizerClaims();
    expect(v.safeParse(SessionClaimsSchema, withoutAccount).success).toBe(false);
    expect(v.safeParse(SessionClaimsSchema, authorizerClaims({ business_account_id: "" })).success).toBe(false);
  });

  test("rejects a missing or empty sub", () => {
    const { sub: _, ...withoutSub } = authorizerClaims();
    expect(v.safeParse(SessionClaimsSchema, withoutSub).success).toBe(false);
    expect(v.safeParse(SessionClaimsSchema, authorizerClaims({ sub: "" })).success).toBe(false);
  });

  test("the email claim: kept trimmed when it is one line of at most 255 characters and not marked unverified; anything else is no email, never a refused session", () => {
    const email = (claims: Record<string, unknown>) => v.parse(SessionClaimsSchema, authorizerClaims(claims)).email;
    expect(email({ email: "  Anna@Example.com " })).toBe("Anna@Example.com");
    expect(email({ email: "a@b.c", email_verified: "true" })).toBe("a@b.c");
    expect(email({ email: "a@b.c", email_verified: true })).toBe("a@b.c");
    // API Gateway passes booleans as strings: "false" is the provider saying it has not verified it.
    expect(email({ email: "a@b.c", email_verified: "false" })).toBeNull();
    expect(email({ email: "a@b.c", email_verified: false })).toBeNull();
    const local = "x".repeat(250);
    expect(email({ email: `${local}@b.cd` })).toBe(`${local}@b.cd`); // 255 characters
    expect(email({ email: `${local}@b.cde` })).toBeNull(); // 256
    for (const bad of ["", "   ", "a@b.c\nbcc@evil", 42, ["a@b.c"], null]) expect(email({ email: bad })).toBeNull();
    expect(email({})).toBeNull();
  });

  test("rejects non-objects", () => {
    for (const input of [undefined, null, "owner", []]) {
      expect(v.safeParse(SessionClaimsSchema, input).success).toBe(false);
    }
  });
});
