import { describe, expect, test } from "vitest";
import { PageValidationError } from "../../../lambdas/domain/core/errors";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { PipelineSchema } from "../../../lambdas/domain/records/pipeline";
import { leadRecord, pipelineRecord, stageRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

describe("parseRecord", () => {
  test("parseRecord: returns the normalised record when valid", () => {
    expect(parseRecord(LeadSchema, leadRecord({ price: "9.9" }), 0).price).toBe(9);
  });

  test("parseRecord: throws a PageValidationError on the first broken rule", () => {
    expect(() => parseRecord(LeadSchema, leadRecord({ price: "abc" }), 0)).toThrow(PageValidationError);
  });

  test("parseRecord recordId: the record's id when it is a non-empty string", () => {
    expect(rejection(LeadSchema, leadRecord({ id: "lead-7", price: false }), 3).recordId).toBe("lead-7");
  });

  test("parseRecord recordId: #<index> (0-based) when the id is missing, empty or not a string", () => {
    expect(rejection(LeadSchema, leadRecord({ id: undefined }), 0).recordId).toBe("#0");
    expect(rejection(LeadSchema, leadRecord({ id: "" }), 5).recordId).toBe("#5");
    expect(rejection(LeadSchema, leadRecord({ id: 99 }), 12).recordId).toBe("#12");
  });

  test("parseRecord field: nested paths are joined like stages[2].kind", () => {
    const raw = pipelineRecord({ stages: [stageRecord(), stageRecord(), stageRecord({ kind: "maybe" })] });
    expect(rejection(PipelineSchema, raw).field).toBe("stages[2].kind");
  });

  test("parseRecord field: object paths are joined with a dot like utm.term", () => {
    expect(rejection(LeadSchema, leadRecord({ utm: { term: [] } })).field).toBe("utm.term");
  });

  test("parseRecord field: a non-object record is (record)", () => {
    expect(rejection(LeadSchema, "lead-1", 2)).toMatchObject({
      recordId: "#2",
      field: "(record)",
      rule: "must be a JSON object",
    });
  });

  test("parseRecord: the first broken field in schema order is reported", () => {
    expect(rejection(LeadSchema, leadRecord({ price: "x", is_deleted: "x" })).field).toBe("price");
  });

  test("parseRecord: the error is not retryable and names itself", () => {
    const error = rejection(LeadSchema, leadRecord({ price: null }));
    expect(error).toMatchObject({ name: "PageValidationError", retryable: false });
    expect(error.detail).toBe("record lead-1: field price: must be a number or a numeric string");
  });
});
