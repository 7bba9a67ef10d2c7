import { describe, expect, test } from "vitest";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { TaskSchema } from "../../../lambdas/domain/records/task";
import { taskRecord } from "../../builders/source-records";
import { rejection } from "./rejection";

const parseTask = (overrides?: Record<string, unknown>) => parseRecord(TaskSchema, taskRecord(overrides), 0);

describe("task", () => {
  test("task: a valid record becomes the canonical task", () => {
    // The builder's fields pass through as they are; what parsing changes is spelled out.
    expect(parseTask()).toEqual({ ...taskRecord(), due_at: "2026-02-10T12:00:00.000Z", updated_at: "2026-02-04T08:00:00.000Z" });
  });

  test("task: created_at, task_type, duration, result and unknown keys are dropped (no raw copy)", () => {
    const output = parseTask({ created_at: "2026-01-01", task_type: "call", duration: 30, result: "ok", extra: 1 });
    expect(Object.keys(output)).toEqual([
      "id",
      "lead_id",
      "contact_id",
      "responsible_user_id",
      "text",
      "is_completed",
      "due_at",
      "completed_at",
      "updated_at",
    ]);
  });

  test("task association: lead_id present wins and contact_id becomes null", () => {
    expect(parseTask({ lead_id: "lead-1", contact_id: "contact-1" })).toMatchObject({
      lead_id: "lead-1",
      contact_id: null,
    });
  });

  test("task association: without lead_id it links to contact_id", () => {
    expect(parseTask({ lead_id: undefined, contact_id: "contact-1" })).toMatchObject({
      lead_id: null,
      contact_id: "contact-1",
    });
  });

  test("task association: an empty lead_id counts as absent", () => {
    expect(parseTask({ lead_id: "", contact_id: "contact-1" })).toMatchObject({ lead_id: null, contact_id: "contact-1" });
  });

  test("task association: neither lead_id nor contact_id is accepted, linked to nothing", () => {
    expect(parseTask({ lead_id: null, contact_id: undefined })).toMatchObject({ lead_id: null, contact_id: null });
  });

  test("task text: never truncated, even at megabytes", () => {
    const text = "😀".repeat(1_000_000);
    expect(parseTask({ text }).text).toBe(text);
  });

  test("task is_completed: default false when omitted or null", () => {
    expect(parseTask({ is_completed: undefined }).is_completed).toBe(false);
    expect(parseTask({ is_completed: null }).is_completed).toBe(false);
  });

  test("task is_completed: true is kept", () => {
    expect(parseTask({ is_completed: true }).is_completed).toBe(true);
  });

  test("task is_completed: a non-boolean fails the page", () => {
    expect(rejection(TaskSchema, taskRecord({ is_completed: "done" }))).toMatchObject({
      recordId: "task-1",
      field: "is_completed",
      rule: "must be a boolean",
    });
  });

  test("task timestamps: unparseable due_at/completed_at become null", () => {
    expect(parseTask({ due_at: "2026-02-30", completed_at: false })).toMatchObject({ due_at: null, completed_at: null });
  });
});
