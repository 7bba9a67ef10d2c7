import { describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../lambdas/domain/core/limits";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { leadRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parseLead = (overrides?: Record<string, unknown>) => parseRecord(LeadSchema, leadRecord(overrides), 0);
const PRICE_RULE = "must be a number or a numeric string";

describe("lead", () => {
  test("lead: a valid record becomes the canonical lead", () => {
    expect(parseLead()).toEqual({
      id: "lead-1",
      name: "Website redesign",
      price: 1500,
      pipeline_id: "pipeline-1",
      stage_id: "stage-new",
      responsible_user_id: "user-1",
      contact_id: "contact-1",
      loss_reason: null,
      source: "website",
      utm: { source: "google", medium: "cpc", campaign: "spring", content: "banner", term: "crm" },
      custom_fields: [{ name: "budget", value: "high" }],
      created_at: "2026-02-01T08:00:00.000Z",
      updated_at: "2026-02-03T08:00:00.000Z",
      closed_at: null,
      is_deleted: false,
    });
  });

  test("lead: currency, is_won, is_lost and unknown keys are dropped; output keys are exactly the lead's", () => {
    const output = parseLead({ currency: "USD", is_won: true, is_lost: true, tags: ["a"] });
    expect(Object.keys(output)).toEqual([
      "id",
      "name",
      "price",
      "pipeline_id",
      "stage_id",
      "responsible_user_id",
      "contact_id",
      "loss_reason",
      "source",
      "utm",
      "custom_fields",
      "created_at",
      "updated_at",
      "closed_at",
      "is_deleted",
    ]);
  });

  test("lead: every optional field omitted gets its default", () => {
    expect(parseRecord(LeadSchema, { id: "lead-9" }, 0)).toEqual({
      id: "lead-9",
      name: null,
      price: 0,
      pipeline_id: null,
      stage_id: null,
      responsible_user_id: null,
      contact_id: null,
      loss_reason: null,
      source: null,
      utm: null,
      custom_fields: null,
      created_at: null,
      updated_at: null,
      closed_at: null,
      is_deleted: false,
    });
  });

  describe("price", () => {
    test.each([
      ["a number keeps its whole part (12.99 → 12)", 12.99, 12],
      ["a numeric string keeps its whole part (\"1500.75\" → 1500)", "1500.75", 1500],
      ["a negative number drops its fraction toward zero (-3.7 → -3)", -3.7, -3],
      ["an integer is kept", 250, 250],
      ["a numeric string with surrounding whitespace", "  42.5 ", 42],
      ["a numeric string with a sign", "+7", 7],
      ["a negative numeric string", "-12.9", -12],
      ["a numeric string with an exponent", "1.5e3", 1500],
      ["a numeric string starting with a dot", ".9", 0],
      ["-0.5 is stored as 0, not -0", -0.5, 0],
    ])("lead price: %s", (_rule, value, expected) => {
      expect(Object.is(parseLead({ price: value }).price, expected)).toBe(true);
    });

    test.each([
      ["a numeric string beyond 2^53 keeps every digit", "123456789012345678901234", "123456789012345678901234"],
      ["a negative one drops its fraction toward zero", " -123456789012345678901234.999 ", "-123456789012345678901234"],
      ["the largest safe integer stays a number", "9007199254740991", 9007199254740991],
      ["one above it is its digits", "9007199254740992", "9007199254740992"],
      ["400 written digits are kept, however long", "7".repeat(400), "7".repeat(400)],
      ["an exponent up to a double's range writes its zeros", "1e308", `1${"0".repeat(308)}`],
      ["a mantissa beyond 2^53 shifted by its exponent", "12345678901234567.89e3", "12345678901234567890"],
      ["a tiny exponent is 0", "5e-99999999999", 0],
      ["a JSON number beyond 2^53 is the double JSON.parse reads, written exactly", JSON.parse("123456789012345678901234") as number, "123456789012345685803008"],
      ["a JSON number at -2^53 + 1 stays a number", -9007199254740991, -9007199254740991],
    ])("lead.price whole part exact: %s", (_rule, value, expected) => {
      expect(parseLead({ price: value }).price).toStrictEqual(expected);
    });

    test("lead price: omitted becomes 0", () => {
      expect(parseLead({ price: undefined }).price).toBe(0);
    });

    test.each([
      ["a non-numeric string (\"abc\")", "abc"],
      ["a boolean (true)", true],
      ["null", null],
      ["an object", { amount: 5 }],
      ["an empty string", ""],
      ["a number with a currency", "100 USD"],
      ["a numeric string out of number range", "1e999"],
      ["an exponent writing one digit more than a double reaches", "1e309"],
      ["an exponent too large to read", `1e${"9".repeat(400)}`],
    ])("lead price: %s fails the page", (_rule, value) => {
      expect(rejection(LeadSchema, leadRecord({ price: value }))).toMatchObject({
        recordId: "lead-1",
        field: "price",
        rule: PRICE_RULE,
      });
    });
  });

  describe("contact_ids", () => {
    test("lead contact_ids: only the first element is kept as contact_id", () => {
      expect(parseLead({ contact_ids: ["c-1", "c-2", 3] }).contact_id).toBe("c-1");
    });

    test("lead contact_ids: an empty array becomes null", () => {
      expect(parseLead({ contact_ids: [] }).contact_id).toBeNull();
    });

    test("lead contact_ids: null or omitted becomes null", () => {
      expect(parseLead({ contact_ids: null }).contact_id).toBeNull();
      expect(parseLead({ contact_ids: undefined }).contact_id).toBeNull();
    });

    test("lead contact_ids: an empty-string first element becomes null", () => {
      expect(parseLead({ contact_ids: [""] }).contact_id).toBeNull();
    });

    test("lead contact_ids: a non-array fails the page", () => {
      expect(rejection(LeadSchema, leadRecord({ contact_ids: "c-1" }))).toMatchObject({
        field: "contact_ids",
        rule: "must be an array of strings or null",
      });
    });

    test("lead contact_ids: a non-string first element fails the page", () => {
      expect(rejection(LeadSchema, leadRecord({ contact_ids: [17, "c-1"] }))).toMatchObject({
        field: "contact_ids[0]",
        rule: "must be a string",
      });
    });
  });

  describe("loss_reason", () => {
    test("lead loss_reason: free text is kept", () => {
      expect(parseLead({ loss_reason: "Too expensive" }).loss_reason).toBe("Too expensive");
    });

    test("lead loss_reason: empty or whitespace-only becomes null", () => {
      expect(parseLead({ loss_reason: "" }).loss_reason).toBeNull();
      expect(parseLead({ loss_reason: " \t\n " }).loss_reason).toBeNull();
    });
  });

  describe("utm", () => {
    test("lead utm: the five sub-fields are kept and other keys dropped", () => {
      expect(parseLead({ utm: { source: "g", medium: "m", gclid: "x" } }).utm).toEqual({
        source: "g",
        medium: "m",
        campaign: null,
        content: null,
        term: null,
      });
    });

    test.each([
      ["source", TEXT_LIMITS.utmShort],
      ["medium", TEXT_LIMITS.utmShort],
      ["campaign", TEXT_LIMITS.utmLong],
      ["content", TEXT_LIMITS.utmLong],
      ["term", TEXT_LIMITS.utmLong],
    ])("lead utm.%s: truncated to %i characters", (key, limit) => {
      const utm = parseLead({ utm: { [key]: "u".repeat(limit + 1) } }).utm as Record<string, unknown>;
      expect(utm[key]).toBe("u".repeat(limit));
      const exact = parseLead({ utm: { [key]: "u".repeat(limit) } }).utm as Record<string, unknown>;
      expect(exact[key]).toBe("u".repeat(limit));
    });

    test("lead utm: null or omitted becomes null", () => {
      expect(parseLead({ utm: null }).utm).toBeNull();
      expect(parseLead({ utm: undefined }).utm).toBeNull();
    });

    test.each([
      ["string", "google"],
      ["array", ["google"]],
      ["number", 1],
      ["boolean", true],
    ])("lead utm: a %s fails the page", (_kind, value) => {
      expect(rejection(LeadSchema, leadRecord({ utm: value }))).toMatchObject({
        field: "utm",
        rule: "must be an object or null",
      });
    });

    test("lead utm: a sub-field of the wrong type fails naming it", () => {
      expect(rejection(LeadSchema, leadRecord({ utm: { campaign: 5 } }))).toMatchObject({
        field: "utm.campaign",
        rule: "must be a string or null",
      });
    });
  });

  describe("custom_fields", () => {
    test("lead custom_fields: an object becomes name/value pairs in key order, values keep their JSON type", () => {
      expect(parseLead({ custom_fields: { b: 1, a: "x", c: [true], d: null, e: { f: 2 } } }).custom_fields).toEqual([
        { name: "b", value: 1 },
        { name: "a", value: "x" },
        { name: "c", value: [true] },
        { name: "d", value: null },
        { name: "e", value: { f: 2 } },
      ]);
    });

    test.each([
      ["empty object", {}],
      ["array", [1]],
      ["string", "x"],
      ["number", 5],
      ["null", null],
    ])("lead custom_fields: a non-object or empty object (%s) becomes null", (_kind, value) => {
      expect(parseLead({ custom_fields: value }).custom_fields).toBeNull();
    });
  });

  describe("is_deleted", () => {
    test("lead is_deleted: true soft-deletes", () => {
      expect(parseLead({ is_deleted: true }).is_deleted).toBe(true);
    });

    test("lead is_deleted: default false when omitted or null", () => {
      expect(parseLead({ is_deleted: undefined }).is_deleted).toBe(false);
      expect(parseLead({ is_deleted: null }).is_deleted).toBe(false);
    });

    test("lead is_deleted: a non-boolean fails the page", () => {
      expect(rejection(LeadSchema, leadRecord({ is_deleted: 1 }))).toMatchObject({
        field: "is_deleted",
        rule: "must be a boolean",
      });
    });
  });

  test("lead references: pipeline_id, stage_id and responsible_user_id are kept whole", () => {
    const long = "r".repeat(300);
    const output = parseLead({ pipeline_id: long, stage_id: long, responsible_user_id: long });
    expect([output.pipeline_id, output.stage_id, output.responsible_user_id]).toEqual([long, long, long]);
  });

  test("lead timestamps: created_at, updated_at and closed_at are normalised; garbage becomes null", () => {
    const output = parseLead({ created_at: "2026-02-01", updated_at: "2026-02-03T10:00:00+01:00", closed_at: "soon" });
    expect([output.created_at, output.updated_at, output.closed_at]).toEqual([
      "2026-02-01T00:00:00.000Z",
      "2026-02-03T09:00:00.000Z",
      null,
    ]);
  });
});
