import { describe, expect, test } from "vitest";
import { ContactSchema } from "../../../lambdas/domain/records/contact";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { contactRecord } from "../../builders/source-records";

const parseContact = (overrides?: Record<string, unknown>) => parseRecord(ContactSchema, contactRecord(overrides), 0);

describe("contact", () => {
  test("contact: a valid record becomes the canonical contact", () => {
    // The builder's fields pass through as they are; what parsing changes is spelled out.
    expect(parseContact()).toEqual({ ...contactRecord(), created_at: "2026-02-01T08:00:00.000Z", updated_at: "2026-02-02T08:00:00.000Z" });
  });

  test("contact: is_deleted and unknown keys are dropped; output keys are exactly the contact's", () => {
    const output = parseContact({ is_deleted: true, company: "ACME" });
    expect(Object.keys(output)).toEqual([
      "id",
      "name",
      "phone",
      "email",
      "responsible_user_id",
      "custom_fields",
      "created_at",
      "updated_at",
    ]);
  });

  test("contact: every optional field omitted becomes null", () => {
    const raw = { id: "contact-9" };
    expect(parseRecord(ContactSchema, raw, 0)).toEqual({
      id: "contact-9",
      name: null,
      phone: null,
      email: null,
      responsible_user_id: null,
      custom_fields: null,
      created_at: null,
      updated_at: null,
    });
  });

  test("contact responsible_user_id: kept whole (no stated max)", () => {
    const id = "u".repeat(400);
    expect(parseContact({ responsible_user_id: id }).responsible_user_id).toBe(id);
  });

  test("contact custom_fields: an object is kept with its values' JSON types", () => {
    const fields = { text: "a", number: 1.5, flag: false, none: null, list: [1, "x"], nested: { a: 1 } };
    expect(parseContact({ custom_fields: fields }).custom_fields).toEqual(fields);
  });

  test.each([
    ["array", [{ a: 1 }]],
    ["string", "vip"],
    ["number", 3],
    ["boolean", true],
    ["null", null],
    ["empty object", {}],
    ["omitted", undefined],
  ])("contact custom_fields: a non-object or empty object (%s) becomes null with no error", (_kind, value) => {
    expect(parseContact({ custom_fields: value }).custom_fields).toBeNull();
  });

  test("contact timestamps: unparseable becomes null and the record is still ingested", () => {
    const output = parseContact({ created_at: "not a date", updated_at: 1_700_000_000 });
    expect(output.created_at).toBeNull();
    expect(output.updated_at).toBeNull();
  });

  test("contact timestamps: normalised to UTC toISOString form", () => {
    expect(parseContact({ updated_at: "2026-03-01 10:00:00-05:00" }).updated_at).toBe("2026-03-01T15:00:00.000Z");
  });
});
