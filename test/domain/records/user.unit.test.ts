import { describe, expect, test } from "vitest";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { UserSchema } from "../../../lambdas/domain/records/user";
import { userRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parseUser = (overrides?: Record<string, unknown>) => parseRecord(UserSchema, userRecord(overrides), 0);

describe("user", () => {
  test("user: a valid record becomes the canonical user", () => {
    expect(parseUser()).toEqual({
      id: "user-1",
      name: "Anna Smith",
      email: "anna@example.com",
      role: "Sales manager",
      is_active: true,
    });
  });

  test("user: phone, timestamps and unknown keys are dropped (no raw copy)", () => {
    const output = parseUser({ phone: "+1 555", created_at: "2026-01-01", updated_at: "2026-01-02", team: "A" });
    expect(Object.keys(output)).toEqual(["id", "name", "email", "role", "is_active"]);
  });

  test("user is_active: omitted defaults to true", () => {
    expect(parseUser({ is_active: undefined }).is_active).toBe(true);
  });

  test("user is_active: explicit null is stored as false", () => {
    expect(parseUser({ is_active: null }).is_active).toBe(false);
  });

  test("user is_active: false is kept", () => {
    expect(parseUser({ is_active: false }).is_active).toBe(false);
  });

  test("user is_active: a non-boolean fails the page", () => {
    expect(rejection(UserSchema, userRecord({ is_active: "yes" }))).toMatchObject({
      recordId: "user-1",
      field: "is_active",
      rule: "must be a boolean",
    });
  });

  test("user email: stored as is (no case or whitespace change)", () => {
    expect(parseUser({ email: " Anna@Example.COM " }).email).toBe(" Anna@Example.COM ");
  });

  test("user role: free text, not validated against a list", () => {
    expect(parseUser({ role: "Chief Happiness Officer" }).role).toBe("Chief Happiness Officer");
  });
});
