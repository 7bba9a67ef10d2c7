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
  test("claim names: business_account_id, sub, role", () => {
    expect(SESSION_CLAIM).toEqual({ businessAccountId: "business_account_id", userId: "sub", role: "role" });
  });

  test("accepts owner, ROP and MOP and reads the session from the authorizer's string claims", () => {
    for (const role of ["owner", "ROP", "MOP"] as const) {
      expect(v.parse(SessionClaimsSchema, authorizerClaims({ role }))).toEqual({
        businessAccountId: "acme",
        userId: "user-7",
        role,
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

  test("rejects non-objects", () => {
    for (const input of [undefined, null, "owner", []]) {
      expect(v.safeParse(SessionClaimsSchema, input).success).toBe(false);
    }
  });
});
