import { describe, expect, test } from "vitest";
import { CallSchema } from "../../../lambdas/domain/records/call";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { callRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parseCall = (overrides?: Record<string, unknown>) => parseRecord(CallSchema, callRecord(overrides), 0);
const ASSOCIATION_RULE = "is required: a call needs lead_id or contact_id";

describe("call", () => {
  test("call: a valid record becomes the canonical call", () => {
    // The builder's fields pass through as they are; what parsing changes is spelled out.
    expect(parseCall()).toEqual({ ...callRecord(), created_at: "2026-02-04T10:00:00.000Z", updated_at: "2026-02-04T10:02:00.000Z", raw: {} });
  });

  test("call: output keys are exactly the call's", () => {
    expect(Object.keys(parseCall({ extra: 1 }))).toEqual([
      "id",
      "lead_id",
      "contact_id",
      "responsible_user_id",
      "direction",
      "duration_seconds",
      "phone",
      "created_at",
      "updated_at",
      "raw",
    ]);
  });

  test("call association: lead_id wins when both are present", () => {
    expect(parseCall({ lead_id: "lead-1", contact_id: "contact-1" })).toMatchObject({
      lead_id: "lead-1",
      contact_id: null,
    });
  });

  test("call association: without lead_id it links to contact_id", () => {
    expect(parseCall({ lead_id: null, contact_id: "contact-1" })).toMatchObject({ lead_id: null, contact_id: "contact-1" });
  });

  test("call association: neither lead_id nor contact_id fails the page", () => {
    expect(rejection(CallSchema, callRecord({ lead_id: undefined, contact_id: null }))).toMatchObject({
      recordId: "call-1",
      field: "lead_id",
      rule: ASSOCIATION_RULE,
    });
  });

  test("call association: empty strings count as absent and fail the page", () => {
    expect(rejection(CallSchema, callRecord({ lead_id: "", contact_id: "" }))).toMatchObject({
      field: "lead_id",
      rule: ASSOCIATION_RULE,
    });
  });

  test.each([
    ["in", "in"],
    ["out", "out"],
    ["IN (not exactly in)", "IN"],
    ["inbound", "inbound"],
    ["a number", 1],
    ["null", null],
    ["omitted", undefined],
  ])("call direction: %s is stored as in only when exactly 'in', else 'out'", (_kind, value) => {
    expect(parseCall({ direction: value }).direction).toBe(value === "in" ? "in" : "out");
  });

  test("call duration_seconds: an integer is kept", () => {
    expect(parseCall({ duration_seconds: 0 }).duration_seconds).toBe(0);
    expect(parseCall({ duration_seconds: 3600 }).duration_seconds).toBe(3600);
  });

  test("call duration_seconds: omitted or null becomes 0", () => {
    expect(parseCall({ duration_seconds: undefined }).duration_seconds).toBe(0);
    expect(parseCall({ duration_seconds: null }).duration_seconds).toBe(0);
  });

  test.each([
    ["a numeric string (\"30\")", "30"],
    ["a fraction (1.5)", 1.5],
    ["a boolean", true],
    ["an object", { seconds: 3 }],
  ])("call duration_seconds: %s fails the page", (_kind, value) => {
    expect(rejection(CallSchema, callRecord({ duration_seconds: value }))).toMatchObject({
      recordId: "call-1",
      field: "duration_seconds",
      rule: "must be an integer",
    });
  });

  test("call raw: only the keys neither in the call table nor ignored are copied, values unchanged", () => {
    const extra = { nested: { a: [1, 2] } };
    const output = parseCall({
      call_status: "answered",
      result: "sale",
      recording_link: "https://rec",
      source: "pbx",
      created_by: "user-2",
      extra,
      note: null,
    });
    expect(output.raw).toEqual({ extra, note: null });
    expect(output.raw["extra"]).toBe(extra);
  });

  test("call raw: {} when there are no unlisted keys", () => {
    expect(parseCall({ call_status: "missed" }).raw).toEqual({});
  });
});
