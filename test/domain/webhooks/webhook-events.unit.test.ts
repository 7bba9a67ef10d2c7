import { describe, expect, test } from "vitest";
import type { ServiceEvent } from "../../../lambdas/domain/core/service-events";
import { committingRun, webhookEventsOf } from "../../../lambdas/domain/webhooks/webhook-events";
import { runFinished } from "../../builders/service-events";

const audit = (healed: { missed: number; stale: number; changed_without_advancing: number }): ServiceEvent => ({
  detail_type: "Audit Finished",
  detail: {
    event_id: "audit-finished:conn-1:audit-1",
    business_account_id: "acct-1",
    connection_id: "conn-1",
    audit_id: "audit-1",
    status: "succeeded",
    started_at: "2026-03-01T11:00:00.000Z",
    finished_at: "2026-03-01T11:30:00.000Z",
    healed,
    ahead_of_watermark: 4,
    absent_in_source: 0,
  },
});

describe("the webhook events one service event makes", () => {
  test("a run that committed records: run finished, and changes committed with the counts per entity (entities with none left out)", () => {
    const [finished, changes] = webhookEventsOf(runFinished({ records: 7 }));
    expect(finished).toMatchObject({ id: "run-finished:conn-1:run-1", type: "run.finished", created_at: "2026-03-01T12:00:00.000Z" });
    expect(changes).toEqual({
      id: "run-finished:conn-1:run-1:changes",
      type: "changes.committed",
      created_at: "2026-03-01T12:00:00.000Z",
      data: { business_account_id: "acct-1", connection_id: "conn-1", run_id: "run-1", cause: "sync", committed_at: "2026-03-01T12:00:00.000Z", records: 7, entities: [{ entity: "leads", records: 7 }], cursor_from: null, cursor_to: null },
    });
  });

  test("changes committed carries the change feed's cursors around the run's commits when the feed has them", () => {
    const [, changes] = webhookEventsOf(runFinished({ records: 7 }), { from: "cursor-before", to: "cursor-after" });
    expect(changes!.data).toMatchObject({ cursor_from: "cursor-before", cursor_to: "cursor-after" });
    // Run finished itself carries no cursor: its schema has none.
    expect(webhookEventsOf(runFinished({ records: 7 }), { from: "a", to: "b" })[0]!.data).not.toHaveProperty("cursor_from");
  });

  test("the run whose commits a changes committed reports: a sync's run id, an audit's id, none for a stale connection", () => {
    expect(committingRun(runFinished({ records: 1 }))).toEqual({ connectionId: "conn-1", runId: "run-1" });
    expect(committingRun(audit({ missed: 1, stale: 0, changed_without_advancing: 0 }))).toEqual({ connectionId: "conn-1", runId: "audit-1" });
    expect(committingRun({ detail_type: "Connection Stale", detail: { event_id: "s", business_account_id: "a", connection_id: "c", freshness_hours: 1, detected_at: "2026-03-01T00:00:00.000Z", stale_entities: [] } })).toBeNull();
  });

  test("a run that committed nothing makes no changes committed (its edge: one record makes one)", () => {
    expect(webhookEventsOf(runFinished({ records: 0 })).map((e) => e.type)).toEqual(["run.finished"]);
    expect(webhookEventsOf(runFinished({ records: 1 })).map((e) => e.type)).toEqual(["run.finished", "changes.committed"]);
  });

  test("an audit that healed records: audit finished, and changes committed with the healed total under the audit's id", () => {
    const events = webhookEventsOf(audit({ missed: 2, stale: 1, changed_without_advancing: 1 }));
    expect(events.map((e) => e.type)).toEqual(["audit.finished", "changes.committed"]);
    expect(events[1]!.data).toMatchObject({ run_id: "audit-1", cause: "audit", records: 4, entities: [] });
    expect(webhookEventsOf(audit({ missed: 0, stale: 0, changed_without_advancing: 0 })).map((e) => e.type)).toEqual(["audit.finished"]);
  });

  test("connection stale is its own event at its detection time", () => {
    const [stale] = webhookEventsOf({
      detail_type: "Connection Stale",
      detail: { event_id: "stale-1", business_account_id: "acct-1", connection_id: "conn-1", freshness_hours: 2, detected_at: "2026-03-01T15:00:00.000Z", stale_entities: [{ entity: "users", data_as_of: null }] },
    });
    expect(stale).toMatchObject({ id: "stale-1", type: "connection.stale", created_at: "2026-03-01T15:00:00.000Z" });
  });

  test("no token or record leaves: a field that is not in the strict schema fails the event instead of being sent", () => {
    const leaking = runFinished({ records: 1 });
    (leaking.detail as Record<string, unknown>)["token"] = "src-token-must-not-leave";
    expect(() => webhookEventsOf(leaking)).toThrow();
    const withRecord = runFinished({ records: 1 });
    ((withRecord.detail as { entities: object[] }).entities[1] as Record<string, unknown>)["record"] = { id: "lead-1", name: "Ann" };
    expect(() => webhookEventsOf(withRecord)).toThrow();
  });
});
