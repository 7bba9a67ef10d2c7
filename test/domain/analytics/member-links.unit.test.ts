import { describe, expect, test } from "vitest";
import { linkOfMember, normalisedEmail, resolveLinks } from "../../../lambdas/domain/analytics/member-links";

const users = [
  { id: "anna", email: " Anna@Example.com", is_active: true },
  { id: "boris", email: "boris@example.com", is_active: true },
  { id: "carla", email: null, is_active: false },
];
const members = new Map([["anna@example.com", "m-anna"], ["boris@example.com", "m-boris"]]);

describe("links of CRM users to members", () => {
  test("emails match trimmed and ignoring case; a user without an email matches no one", () => {
    expect(normalisedEmail("  Anna@Example.COM ")).toBe("anna@example.com");
    expect(normalisedEmail("   ")).toBeNull();
    const links = resolveLinks(users, [], members);
    expect(links.get("anna")).toEqual({ memberId: "m-anna", kind: "email" });
    expect(links.get("carla")).toEqual({ memberId: null, kind: null });
  });

  test("emails match in any Unicode case and composition: É and é, one code point or e and a combining accent", () => {
    const composed = "Jos\u00e9.N\u00fa\u00f1ez@example.com";
    const decomposed = "JOSE\u0301.NU\u0301N\u0303EZ@EXAMPLE.COM";
    expect(composed).not.toBe(decomposed.toLowerCase());
    expect(normalisedEmail(decomposed)).toBe(normalisedEmail(composed));
    const links = resolveLinks([{ id: "jose", email: ` ${decomposed}\u00a0`, is_active: true }], [], new Map([[normalisedEmail(composed)!, "m-jose"]]));
    expect(links.get("jose")).toEqual({ memberId: "m-jose", kind: "email" });
    // Different letters stay different: e and é are two emails.
    expect(normalisedEmail("jose@example.com")).not.toBe(normalisedEmail(composed.replace(".N\u00fa\u00f1ez", "")));
  });

  test("the owner's link wins over email, and the member it names is linked by email nowhere else on the connection", () => {
    const links = resolveLinks(users, [{ sourceUserId: "carla", memberId: "m-anna", at: "t" }], members);
    expect(links.get("carla")).toEqual({ memberId: "m-anna", kind: "owner" });
    expect(links.get("anna")).toEqual({ memberId: null, kind: null });
    expect(linkOfMember(links, "m-anna")).toEqual({ sourceUserId: "carla", kind: "owner" });
  });

  test("an unlink by the owner sticks: the user's matching email links it to no one", () => {
    const links = resolveLinks(users, [{ sourceUserId: "anna", memberId: null, at: "t" }], members);
    expect(links.get("anna")).toEqual({ memberId: null, kind: "unlinked" });
    expect(linkOfMember(links, "m-anna")).toBeNull();
  });

  test("a member whose email matches several users is linked to the one active user, else to none", () => {
    const twins = [
      { id: "old", email: "anna@example.com", is_active: false },
      { id: "new", email: "ANNA@example.com", is_active: true },
    ];
    expect(linkOfMember(resolveLinks(twins, [], members), "m-anna")).toEqual({ sourceUserId: "new", kind: "email" });
    const bothActive = twins.map((user) => ({ ...user, is_active: true }));
    expect(linkOfMember(resolveLinks(bothActive, [], members), "m-anna")).toBeNull();
    const bothInactive = twins.map((user) => ({ ...user, is_active: false }));
    expect(linkOfMember(resolveLinks(bothInactive, [], members), "m-anna")).toBeNull();
  });
});
