import { describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../lambdas/domain/core/limits";
import { EventSchema } from "../../../lambdas/domain/records/event";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { eventRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parseEvent = (overrides?: Record<string, unknown>) => parseRecord(EventSchema, eventRecord(overrides), 0);
const LEAD_ID_RULE = "is required: a non-empty string";

describe("event", () => {
  test("event: a valid record becomes the canonical event with its raw copy", () => {
    expect(parseEvent()).toEqual({
      id: "event-1",
      lead_id: "lead-1",
      type: "stage_changed",
      value_before: { value: "stage-new" },
      value_after: { value: "stage-won" },
      created_at: "2026-02-05T10:00:00.000Z",
      updated_at: "2026-02-05T10:00:00.000Z",
      raw: eventRecord(),
    });
  });

  test("event: output keys are exactly the event's", () => {
    expect(Object.keys(parseEvent({ extra: 1 }))).toEqual([
      "id",
      "lead_id",
      "type",
      "value_before",
      "value_after",
      "created_at",
      "updated_at",
      "raw",
    ]);
  });

  test.each([
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
  ])("event lead_id: %s fails the page", (_kind, value) => {
    expect(rejection(EventSchema, eventRecord({ lead_id: value }))).toMatchObject({
      recordId: "event-1",
      field: "lead_id",
      rule: LEAD_ID_RULE,
    });
  });

  test("event lead_id: a non-string fails the page", () => {
    expect(rejection(EventSchema, eventRecord({ lead_id: 5 }))).toMatchObject({ field: "lead_id", rule: LEAD_ID_RULE });
  });

  test("event type: absent or null becomes '' (never null)", () => {
    expect(parseEvent({ type: undefined }).type).toBe("");
    expect(parseEvent({ type: null }).type).toBe("");
  });

  test.each([
    ["a string", "stage-new", { value: "stage-new" }],
    ["a number", 0, { value: 0 }],
    ["a boolean", false, { value: false }],
    ["an empty string", "", { value: "" }],
    ["an object (unchanged)", { stage: "s1", pipeline: "p1" }, { stage: "s1", pipeline: "p1" }],
    ["an array (unchanged)", ["a", 1], ["a", 1]],
    ["null", null, null],
    ["omitted", undefined, null],
  ])("event value_before/value_after: %s", (_kind, value, expected) => {
    const output = parseEvent({ value_before: value, value_after: value });
    expect(output.value_before).toEqual(expected);
    expect(output.value_after).toEqual(expected);
  });

  test("event raw: the whole event as received minus created_by", () => {
    const lead_id = "l".repeat(TEXT_LIMITS.reference + 10);
    const raw = eventRecord({ lead_id, type: null, created_by: "user-1", note: { text: "hi" }, value_before: 3 });
    const { created_by: _dropped, ...expected } = raw;
    const output = parseRecord(EventSchema, raw, 0);
    expect(output.raw).toEqual(expected);
    expect(Object.keys(output.raw)).toEqual(Object.keys(expected));
    expect(output.lead_id).toBe("l".repeat(TEXT_LIMITS.reference));
  });

  test("event updated_at: kept in the output for the watermark; unparseable becomes null", () => {
    expect(parseEvent({ updated_at: "2026-02-05 11:00:00.5+01:00" }).updated_at).toBe("2026-02-05T10:00:00.500Z");
    expect(parseEvent({ updated_at: undefined }).updated_at).toBeNull();
    expect(parseEvent({ created_at: "garbage" }).created_at).toBeNull();
  });
});
