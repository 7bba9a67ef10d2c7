import { describe, expect, test } from "vitest";
import { auditDue, auditEveryDays } from "../../../lambdas/domain/core/audit-schedule";
import { runModeOf } from "../../../lambdas/domain/core/run-mode";
import { claimDispatchedRun, listDispatchPage } from "../../../lambdas/domain/sync/dispatch-tick";
import { useSyncHarness } from "../../support/sync-harness";

const DAY = 86_400_000;
const harness = useSyncHarness();

describe("audit_schedule", () => {
  test("a scheduled audit is due every N days after the last one started, weekly by default, never when off", () => {
    const created = "2026-03-01T00:00:00.000Z";
    expect(auditEveryDays(undefined)).toBe(7);
    expect(auditEveryDays("off")).toBeNull();
    expect(auditEveryDays("3d")).toBe(3);
    expect(auditDue(7, null, created, new Date(Date.parse(created) + 7 * DAY - 1))).toBe(false);
    expect(auditDue(7, null, created, new Date(Date.parse(created) + 7 * DAY))).toBe(true);
    expect(auditDue(7, "2026-03-10T00:00:00.000Z", created, new Date("2026-03-16T00:00:00.000Z"))).toBe(false);
    expect(auditDue(7, "2026-03-10T00:00:00.000Z", created, new Date("2026-03-17T00:00:00.000Z"))).toBe(true);
    expect(auditDue(null, null, created, new Date("2030-01-01T00:00:00.000Z"))).toBe(false);
  });

  test("the schedule tick starts a due audit instead of a sync, and a sync when audits are off or not due", async () => {
    const due = await harness().addConnection({ baseUrl: "http://127.0.0.1:9", token: "t" });
    const offConnection = await harness().addConnection({ baseUrl: "http://127.0.0.1:9", token: "t" });
    await harness().connections.put({ ...offConnection, audit_schedule: "off" });
    const later = new Date(Date.parse(due.created_at) + 8 * DAY);
    const deps = { ...harness().startDeps, clock: { now: () => later } };

    const page = await listDispatchPage(harness().startDeps, null);
    const items = page.batches.flatMap((batch) => batch.items);
    const dueItem = items.find((item) => item.connection_id === due.id)!;
    const offItem = items.find((item) => item.connection_id === offConnection.id)!;
    expect(dueItem).toMatchObject({ audit_every_days: 7, created_at: due.created_at });
    expect(offItem.audit_every_days).toBeUndefined();

    const audit = await claimDispatchedRun(deps, dueItem);
    expect(audit.claimed && runModeOf(audit.run.run_id)).toBe("audit");
    const sync = await claimDispatchedRun(deps, offItem);
    expect(sync.claimed && runModeOf(sync.run.run_id)).toBe("sync");
    // Not due again until 7 days after the last audit started.
    const fresh = await harness().addConnection({ baseUrl: "http://127.0.0.1:9", token: "t" });
    const notDue = await claimDispatchedRun(harness().startDeps, { business_account_id: fresh.business_account_id, connection_id: fresh.id, audit_every_days: 7, created_at: fresh.created_at });
    expect(notDue.claimed && runModeOf(notDue.run.run_id)).toBe("sync");
  });
});
