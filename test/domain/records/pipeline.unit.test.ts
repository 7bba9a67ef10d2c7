import { describe, expect, test } from "vitest";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { PipelineSchema } from "../../../lambdas/domain/records/pipeline";
import { StageSchema } from "../../../lambdas/domain/records/stage";
import { pipelineRecord, stageRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parsePipeline = (overrides?: Record<string, unknown>) => parseRecord(PipelineSchema, pipelineRecord(overrides), 0);
const parseStage = (overrides?: Record<string, unknown>) => parseRecord(StageSchema, stageRecord(overrides), 0);
const KIND_RULE = "must be one of open, won, lost (case-insensitive)";

describe("pipeline", () => {
  test("pipeline: a valid record becomes the canonical pipeline with its stages", () => {
    expect(parsePipeline()).toEqual({
      id: "pipeline-1",
      name: "Sales",
      is_archived: false,
      sort: 1,
      stages: [
        { id: "stage-new", name: "New", kind: "open", sort: 1, color: "#3366ff" },
        { id: "stage-won", name: "Won", kind: "won", sort: 2, color: "#00aa00" },
        { id: "stage-lost", name: "Lost", kind: "lost", sort: 3, color: "#aa0000" },
      ],
    });
  });

  test("pipeline: timestamps and unknown keys are dropped; output keys are exactly the pipeline's", () => {
    const output = parsePipeline({ owner: "x", currency: "EUR" });
    expect(Object.keys(output)).toEqual(["id", "name", "is_archived", "sort", "stages"]);
  });

  test("pipeline stages: missing fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: undefined }))).toMatchObject({
      recordId: "pipeline-1",
      field: "stages",
      rule: "must be an array of stages (missing or null is not allowed)",
    });
  });

  test("pipeline stages: null fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: null }))).toMatchObject({
      recordId: "pipeline-1",
      field: "stages",
      rule: "must be an array of stages (missing or null is not allowed)",
    });
  });

  test("pipeline stages: an object instead of an array fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: { a: stageRecord() } }))).toMatchObject({ field: "stages" });
  });

  test("pipeline stages: an empty array is valid", () => {
    expect(parsePipeline({ stages: [] }).stages).toEqual([]);
  });

  test("pipeline stages: a non-object stage fails naming its index", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord(), "won"] }))).toMatchObject({
      field: "stages[1]",
      rule: "must be a JSON object",
    });
  });

  test("pipeline is_archived: default false when omitted", () => {
    expect(parsePipeline({ is_archived: undefined }).is_archived).toBe(false);
  });

  test("pipeline is_archived: null becomes false", () => {
    expect(parsePipeline({ is_archived: null }).is_archived).toBe(false);
  });

  test("pipeline is_archived: true is kept (archived pipelines are still ingested)", () => {
    expect(parsePipeline({ is_archived: true }).is_archived).toBe(true);
  });

  test("pipeline is_archived: a non-boolean fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ is_archived: "true" }))).toMatchObject({
      field: "is_archived",
      rule: "must be a boolean",
    });
  });

  test("pipeline sort: an integer is kept, negative included", () => {
    expect(parsePipeline({ sort: -7 }).sort).toBe(-7);
  });

  test("pipeline sort: omitted becomes 0", () => {
    expect(parsePipeline({ sort: undefined }).sort).toBe(0);
  });

  test("pipeline sort: null becomes 0", () => {
    expect(parsePipeline({ sort: null }).sort).toBe(0);
  });

  test("pipeline sort: a fraction (2.5) fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ sort: 2.5 }))).toMatchObject({
      recordId: "pipeline-1",
      field: "sort",
      rule: "must be an integer",
    });
  });

  test("pipeline sort: a numeric string (\"2\") fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ sort: "2" }))).toMatchObject({ field: "sort", rule: "must be an integer" });
  });

  test("pipeline sort: a boolean fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ sort: true }))).toMatchObject({ field: "sort", rule: "must be an integer" });
  });
});

describe("stage", () => {
  test("stage kind: matched case-insensitively and stored lowercase ('WON' → 'won')", () => {
    expect(parseStage({ kind: "WON" }).kind).toBe("won");
    expect(parseStage({ kind: "Lost" }).kind).toBe("lost");
    expect(parseStage({ kind: "oPeN" }).kind).toBe("open");
  });

  test("stage kind: any other value ('pending') fails the page", () => {
    expect(
      rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord(), stageRecord(), stageRecord({ kind: "pending" })] })),
    ).toMatchObject({ recordId: "pipeline-1", field: "stages[2].kind", rule: KIND_RULE });
  });

  test("stage kind: missing fails the page (never treated as open)", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord({ kind: undefined })] }))).toMatchObject({
      recordId: "pipeline-1",
      field: "stages[0].kind",
      rule: KIND_RULE,
    });
  });

  test("stage kind: null fails the page", () => {
    expect(rejection(StageSchema, stageRecord({ kind: null }))).toMatchObject({ field: "kind", rule: KIND_RULE });
  });

  test("stage kind: surrounding whitespace is not trimmed and fails", () => {
    expect(rejection(StageSchema, stageRecord({ kind: " won" }))).toMatchObject({ field: "kind", rule: KIND_RULE });
  });

  test("stage kind: a non-string fails the page", () => {
    expect(rejection(StageSchema, stageRecord({ kind: 1 }))).toMatchObject({ field: "kind", rule: KIND_RULE });
  });

  test("stage id: missing fails the page naming the stage", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord({ id: undefined })] }))).toMatchObject({
      recordId: "pipeline-1",
      field: "stages[0].id",
      rule: "must be a string of 1 to 255 characters",
    });
  });

  test("stage id: 256 characters fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord({ id: "s".repeat(256) })] }))).toMatchObject({
      field: "stages[0].id",
    });
  });

  test("stage sort: omitted or null becomes 0", () => {
    expect(parseStage({ sort: undefined }).sort).toBe(0);
    expect(parseStage({ sort: null }).sort).toBe(0);
  });

  test("stage sort: a fraction fails the page", () => {
    expect(rejection(PipelineSchema, pipelineRecord({ stages: [stageRecord({ sort: 1.5 })] }))).toMatchObject({
      field: "stages[0].sort",
      rule: "must be an integer",
    });
  });

  test("stage: type key, timestamps and unknown keys are dropped; output keys are exactly the stage's", () => {
    const output = parseStage({ type: "won", created_at: "2026-01-01", probability: 50 });
    expect(output).toEqual({ id: "stage-new", name: "New", kind: "open", sort: 1, color: "#3366ff" });
    expect(Object.keys(output)).toEqual(["id", "name", "kind", "sort", "color"]);
  });

  test("stage: name and color omitted become null", () => {
    expect(parseStage({ name: undefined, color: undefined })).toEqual({
      id: "stage-new",
      name: null,
      kind: "open",
      sort: 1,
      color: null,
    });
  });

  test("stage: the same stage id may repeat across pipelines", () => {
    const a = parsePipeline({ id: "p-a", stages: [stageRecord({ id: "shared" })] });
    const b = parsePipeline({ id: "p-b", stages: [stageRecord({ id: "shared" })] });
    expect([a.stages[0]?.id, b.stages[0]?.id]).toEqual(["shared", "shared"]);
  });
});
