import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { reportedTransition } from "../../../lambdas/domain/core/lead-history";
import { isStageEventType, MAX_STAGE_EVENT_TYPE_LENGTH, STAGE_EVENT_TYPE_RULES, StageEventTypeSchema } from "../../../lambdas/domain/core/stage-event-type";
import { EventSchema } from "../../../lambdas/domain/records/event";
import { eventRecord } from "../../builders/source-records";

const PAGE = { runId: "run-1", committedAt: "2026-03-01T00:00:00.000Z" };
const FOUR_BYTES = "😀"; // one code point, two UTF-16 units, four UTF-8 bytes

/** The first broken rule's message, or null when the setting is accepted. */
const ruleOf = (value: unknown) => {
  const result = v.safeParse(StageEventTypeSchema, value, { abortPipeEarly: true });
  return result.success ? null : result.issues[0].message;
};

describe("the stage-event-type setting's rules, at their edges", () => {
  test("the setting is at most 100 characters: 100 ASCII characters pass, 101 are refused", () => {
    expect(MAX_STAGE_EVENT_TYPE_LENGTH).toBe(100);
    expect(ruleOf("t".repeat(100))).toBeNull();
    expect(ruleOf("t".repeat(101))).toBe(STAGE_EVENT_TYPE_RULES.length);
  });

  test("the setting counts characters, not bytes or UTF-16 units: 100 four-byte characters (400 bytes) pass, 101 (404 bytes) are refused", () => {
    const hundred = FOUR_BYTES.repeat(100);
    expect([hundred.length, Buffer.byteLength(hundred)]).toEqual([200, 400]);
    expect(ruleOf(hundred)).toBeNull();
    expect(ruleOf(FOUR_BYTES.repeat(101))).toBe(STAGE_EVENT_TYPE_RULES.length);
    // Three-byte characters: 100 are 300 bytes and pass.
    expect(ruleOf("段".repeat(100))).toBeNull();
    expect(ruleOf("段".repeat(101))).toBe(STAGE_EVENT_TYPE_RULES.length);
  });

  test("the setting must not be empty (null, not an empty string, goes back to the default)", () => {
    expect(ruleOf("")).toBe(STAGE_EVENT_TYPE_RULES.empty);
    expect(ruleOf("x")).toBeNull();
  });

  test.each([
    ["a line feed", "stage\nmoved"],
    ["a tab", "stage\tmoved"],
    ["a NUL", "stage\u0000"],
    ["a DEL", "\u007fstage"],
    ["a C1 control (NEL)", "stage\u0085moved"],
  ])("the setting must not contain control characters: %s is refused", (_what, value) => {
    expect(ruleOf(value)).toBe(STAGE_EVENT_TYPE_RULES.control);
  });

  test("the setting must not begin or end with white space; inside it is kept", () => {
    expect(ruleOf(" stage")).toBe(STAGE_EVENT_TYPE_RULES.edges);
    expect(ruleOf("stage ")).toBe(STAGE_EVENT_TYPE_RULES.edges);
    expect(ruleOf("stage\u00a0")).toBe(STAGE_EVENT_TYPE_RULES.edges);
    expect(ruleOf(" ")).toBe(STAGE_EVENT_TYPE_RULES.edges);
    expect(ruleOf("Pipeline Move")).toBeNull();
  });

  test("the setting must be valid Unicode: a lone surrogate is refused", () => {
    expect(ruleOf("stage\ud800")).toBe(STAGE_EVENT_TYPE_RULES.unicode);
  });

  test("the setting must be a string", () => {
    expect(ruleOf(5)).toMatch(/must be a string/);
  });
});

describe("which events are stage events", () => {
  test("set: only events of exactly that type, case included; another case, a longer or shorter type is not one", () => {
    expect(isStageEventType("Pipeline Move", "Pipeline Move")).toBe(true);
    expect(isStageEventType("pipeline move", "Pipeline Move")).toBe(false);
    expect(isStageEventType("Pipeline Move v2", "Pipeline Move")).toBe(false);
    expect(isStageEventType("Pipeline", "Pipeline Move")).toBe(false);
    // The default's own matches no longer count once the owner names a type.
    expect(isStageEventType("stage_changed", "Pipeline Move")).toBe(false);
  });

  test("unset: the default detection, a type containing 'stage' in any case", () => {
    expect(isStageEventType("stage_changed", null)).toBe(true);
    expect(isStageEventType("Lead STAGE moved", null)).toBe(true);
    expect(isStageEventType("Pipeline Move", null)).toBe(false);
    expect(isStageEventType(undefined, null)).toBe(false);
  });

  test("a source type over 100 characters is kept to its first 100, which is what the setting names", () => {
    const long = FOUR_BYTES.repeat(60) + "stage".repeat(20);
    const stored = v.parse(EventSchema, eventRecord({ type: long })).type;
    const setting = [...long].slice(0, 100).join("");
    expect(ruleOf(setting)).toBeNull();
    expect(isStageEventType(stored, setting)).toBe(true);
  });

  test("reportedTransition follows the setting: set, the named type gives a move and the default's type none", () => {
    const event = (type: string) => ({ id: "e1", lead_id: "l1", type, value_before: { value: "s1" }, value_after: { value: "s2" }, created_at: "2026-02-01T10:00:00.000Z" });
    expect(reportedTransition(event("Pipeline Move"), PAGE, "Pipeline Move")).toMatchObject({ from_stage_id: "s1", to_stage_id: "s2", source: "reported" });
    expect(reportedTransition(event("stage_changed"), PAGE, "Pipeline Move")).toBeNull();
    expect(reportedTransition(event("PIPELINE MOVE"), PAGE, "Pipeline Move")).toBeNull();
    expect(reportedTransition(event("stage_changed"), PAGE, null)).not.toBeNull();
  });
});
