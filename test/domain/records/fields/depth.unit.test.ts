import { describe, expect, test } from "vitest";
import { MAX_RECORD_DEPTH } from "../../../../lambdas/domain/core/limits";
import { ContactSchema } from "../../../../lambdas/domain/records/contact";
import { EventSchema } from "../../../../lambdas/domain/records/event";
import { DEPTH_RULE, nestsDeeperThan, tooDeepField } from "../../../../lambdas/domain/records/fields/depth";
import { LeadSchema } from "../../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../../lambdas/domain/records/parse-record";
import { customFieldsOfDepth, DEPTH_EDGES, nestedArrays, nestedArraysJson } from "../../../builders/hostile-records";
import { contactRecord, eventRecord, leadRecord } from "../../../builders/source-records";
import { rejection } from "../rejection";

describe("record.depth: a record nests at most MAX_RECORD_DEPTH levels of objects and arrays", () => {
  test("record.depth: nestsDeeperThan counts containers, not scalars", () => {
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan([], 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1] }, 2)).toBe(false);
    expect(nestsDeeperThan({ a: [1] }, 1)).toBe(true);
    // A wide value is no deeper: only the longest path counts.
    expect(nestsDeeperThan(Array.from({ length: 10_000 }, () => [[]]), 3)).toBe(false);
  });

  test(`record.depth: a contact exactly ${DEPTH_EDGES.accepted} levels deep is accepted whole`, () => {
    const fields = customFieldsOfDepth(DEPTH_EDGES.accepted);
    expect(parseRecord(ContactSchema, contactRecord({ custom_fields: fields }), 0).custom_fields).toEqual(fields);
  });

  test(`record.depth: a contact ${DEPTH_EDGES.refused} levels deep fails, naming record, field and rule`, () => {
    const error = rejection(ContactSchema, contactRecord({ id: "c-deep", custom_fields: customFieldsOfDepth(DEPTH_EDGES.refused) }), 4);
    expect(error).toMatchObject({ recordId: "c-deep", field: "custom_fields", rule: DEPTH_RULE });
    expect(error.detail).toBe(`record c-deep: field custom_fields: ${DEPTH_RULE}`);
  });

  test("record.depth: 100,000 levels fail the same way, with no stack overflow (parsed from text, as the client reads it)", () => {
    const raw = JSON.parse(`{"id":"c-100k","updated_at":"2026-03-01T00:00:00Z","custom_fields":{"x":${nestedArraysJson(100_000)}}}`) as unknown;
    expect(rejection(ContactSchema, raw)).toMatchObject({ recordId: "c-100k", field: "custom_fields", rule: DEPTH_RULE });
  });

  test("record.depth: any field counts, kept or ignored (a lead's unknown key, an event's value_after)", () => {
    expect(rejection(LeadSchema, leadRecord({ id: "l-deep", extra: nestedArrays(MAX_RECORD_DEPTH) })).field).toBe("extra");
    expect(rejection(EventSchema, eventRecord({ id: "e-deep", value_after: nestedArrays(MAX_RECORD_DEPTH) })).field).toBe("value_after");
    expect(parseRecord(EventSchema, eventRecord({ value_after: nestedArrays(MAX_RECORD_DEPTH - 1) }), 0).value_after).toEqual(nestedArrays(MAX_RECORD_DEPTH - 1));
  });

  test("record.depth: a record that is itself a deep array is (record), by its place in the page", () => {
    expect(tooDeepField(nestedArrays(MAX_RECORD_DEPTH + 1))).toBe("(record)");
    expect(rejection(ContactSchema, nestedArrays(MAX_RECORD_DEPTH + 1), 7)).toMatchObject({ recordId: "#7", field: "(record)", rule: DEPTH_RULE });
  });
});
