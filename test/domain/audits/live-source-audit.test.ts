import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { MutationSummary } from "../../../bin/reference-source/mutations";
import type { SourceLead } from "../../../bin/reference-source/records";
import { formatTimestamp } from "../../../bin/reference-source/timestamps";
import type { AuditSummary } from "../../../lambdas/domain/core/audit-summary";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { AUDIT_ENTITIES, type AuditEntity } from "../../../lambdas/domain/core/run-mode";
import { DynamoDbNotificationStore } from "../../../lambdas/adapters/dynamodb/notifications/dynamodb-notification-store";
import { explainRecord } from "../../../lambdas/domain/onboarding/explain-record";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { startLiveReferenceSource, type LiveReferenceSource } from "../../support/live-reference-source";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { SteppedClock } from "../../support/stepped-clock";

/*
 * Issue 32 item 1 on a CRM that keeps changing, between runs and during them:
 * a sync (the source edits contacts and leads after the sync read them), a
 * round of ordinary activity, one late commit and one change that keeps its
 * updated_at, then an audit (the source edits leads, tasks and events while
 * it reads). Only the two planted records are healed; every ordinary change
 * is ahead_of_watermark, left to the next sync, which brings it. Every change
 * of the source happens on a request the test names (beforeNext), never on a
 * timer; the domain's clock is the test's.
 */

const NOW = Date.parse("2026-06-01T00:00:00Z");
const MINUTE = 60_000;
const SIZES = { pipelines: 2, users: 5, contacts: 60, leads: 150, tasks: 80, calls: 40, events: 100 };


const clock = new SteppedClock(NOW + MINUTE);
let harness: SyncHarness;
let source: LiveReferenceSource;
let connection: StoredConnection;
let watermarksBeforeAudit: Record<AuditEntity, string | null>;
let audit: AuditSummary;
/** The rounds of activity: during the first sync (A), between it and the audit (B), during the audit (C), during the next sync (D). */
const rounds: Partial<Record<"A" | "B" | "C" | "D", MutationSummary>> = {};
const LATE_LEAD = "lead-committed-late";
let unadvancedContact: string;
/** Lead ids the source held before any run, and before round B. */
let initialLeads: Set<string>;
let leadsBeforeB: Set<string>;

const row = (summary: AuditSummary, entity: AuditEntity) => summary.entities.find((each) => each.entity === entity)!;
const changedIn = (entity: "contacts" | "leads" | "tasks" | "events", ...names: ("A" | "B" | "C" | "D")[]) => new Set(names.flatMap((name) => rounds[name]![entity]));
const explain = (collection: string, id: string) =>
  explainRecord({ connections: harness.connections, audits: harness.deps.audits, runs: harness.runs, keySpace: dynamoDbKeySpace, clock }, { account: connection.business_account_id, connectionId: connection.id, entity: collection, recordId: id, query: {} });

async function watermarks(): Promise<Record<AuditEntity, string | null>> {
  return Object.fromEntries(await Promise.all(AUDIT_ENTITIES.map(async (entity) => [entity, await harness.records.getWatermark(connection.id, entity)]))) as Record<AuditEntity, string | null>;
}

async function runAudit(): Promise<AuditSummary> {
  const started = await startSync(harness.startDeps, connection, { mode: "audit" });
  expect(started.started).toBe(true);
  await harness.waitForRun(connection.id, started.runId);
  return (await harness.runs.getAudit(connection.id, started.runId))!;
}

beforeAll(async () => {
  harness = await createSyncHarness({ clock });
  source = await startLiveReferenceSource({ seed: 32, sizes: SIZES, now: new Date(NOW) });
  connection = await harness.addConnection({ baseUrl: source.url, token: source.token, syncSince: "2025-01-01T00:00:00Z" });

  initialLeads = new Set(source.dataset.leads.map((lead) => lead.id));
  // A: while the first sync reads, after it has read contacts and leads (before it reads tasks and events).
  const roundA = source.beforeNext("/tasks", () => void (rounds.A = source.mutate(new Date(NOW + MINUTE / 2))));
  expect((await harness.sync(connection)).status).toBe("succeeded");
  await roundA;

  // B: ordinary activity between the runs; then a contact changed without its updated_at moving.
  clock.moveTo(NOW + 10 * MINUTE);
  leadsBeforeB = new Set(source.dataset.leads.map((lead) => lead.id));
  rounds.B = source.mutate(new Date(NOW + 5 * MINUTE));
  const touched = changedIn("contacts", "A", "B");
  const contactIndex = source.dataset.contacts.findIndex((contact) => !touched.has(contact.id));
  const contact = source.dataset.contacts[contactIndex]!;
  unadvancedContact = contact.id;
  source.dataset.contacts[contactIndex] = { ...contact, phone: "+1 555 000 3232" };
  watermarksBeforeAudit = await watermarks();

  // C: while the audit reads, after it has read contacts: more activity, and a lead committed late (an hour below the watermark).
  const leadsWatermark = Date.parse(watermarksBeforeAudit.leads!);
  const roundC = source.beforeNext("/leads", () => {
    rounds.C = source.mutate(new Date(NOW + 8 * MINUTE));
    const model = source.dataset.leads.find((lead) => !lead.is_deleted)!;
    const stamp = formatTimestamp(leadsWatermark - 60 * MINUTE, 0);
    source.dataset.leads.push({ ...model, id: LATE_LEAD, name: "Committed late", created_at: stamp, updated_at: stamp } satisfies SourceLead);
  });
  audit = await runAudit();
  await roundC;
}, 120_000);

afterAll(async () => {
  await source?.close();
  await harness?.close();
});

describe("an audit classifies against the watermark, on a source that keeps changing", () => {
  test("audit heals only the late commit and the change that kept its updated_at; every ordinary change is ahead_of_watermark", () => {
    expect(audit.status).toBe("succeeded");
    const healedNone = { missed: 0, stale: 0, changed_without_advancing: 0 };
    expect(row(audit, "leads").healed).toEqual({ ...healedNone, missed: 1 });
    expect(row(audit, "contacts").healed).toEqual({ ...healedNone, changed_without_advancing: 1 });
    for (const entity of ["tasks", "calls", "events"] as const) expect(row(audit, entity).healed, entity).toEqual(healedNone);
    expect(row(audit, "leads").sample_ids).toEqual([LATE_LEAD]);
    expect(row(audit, "contacts").sample_ids).toEqual([unadvancedContact]);

    // What changed after each entity's last read by a sync, and before the audit read it: contacts and leads were read
    // by the first sync before A, tasks and events after it; the audit read contacts before C, the rest after it.
    expect(row(audit, "contacts").ahead_of_watermark).toBe(changedIn("contacts", "A", "B").size);
    expect(row(audit, "leads").ahead_of_watermark).toBe(changedIn("leads", "A", "B", "C").size);
    expect(row(audit, "tasks").ahead_of_watermark).toBe(changedIn("tasks", "B", "C").size);
    expect(row(audit, "events").ahead_of_watermark).toBe(changedIn("events", "B", "C").size);
    expect(row(audit, "calls").ahead_of_watermark).toBe(0);
    // Not vacuous: each round changed records of every entity it touches.
    for (const entity of ["contacts", "leads", "tasks", "events"] as const) expect(row(audit, entity).ahead_of_watermark, entity).toBeGreaterThan(0);
  });

  test("the Audit Finished notification's figures say 2 healed, and count what is ahead apart", async () => {
    const notes = await new DynamoDbNotificationStore({ client: harness.client, tableName: harness.tableName }).listLatest(connection.business_account_id, 100);
    const finished = notes.find((note) => note.id === `audit-finished:${connection.id}:${audit.id}`)!;
    const healed = finished.detail["healed"] as Record<string, number>;
    expect(healed).toEqual({ missed: 1, stale: 0, changed_without_advancing: 1 });
    expect(Object.values(healed).reduce((sum, count) => sum + count, 0)).toBe(2);
    expect(finished.detail["ahead_of_watermark"]).toBe(audit.entities.reduce((sum, entity) => sum + entity.ahead_of_watermark, 0));
  });

  test("an audit never moves a watermark, and writes nothing of what is ahead", async () => {
    expect(await watermarks()).toEqual(watermarksBeforeAudit);
    const stored = new Map((await harness.listAll(connection.id, "leads")).map((lead) => [lead["id"] as string, lead]));
    for (const id of changedIn("leads", "B", "C")) {
      const now = source.dataset.leads.find((lead) => lead.id === id)!;
      // A new lead is not stored; a changed one is stored as the first sync left it (older).
      const held = stored.get(id);
      if (held !== undefined) expect(Date.parse(held["updated_at"] as string), id).toBeLessThan(Date.parse(now.updated_at));
    }
    expect(stored.has(LATE_LEAD)).toBe(true);
  });

  test("explain of a record ahead of the watermark says it changed after the last sync and the next sync brings it, never missed or late", async () => {
    const newLead = rounds.B!.leads.find((id) => !leadsBeforeB.has(id))!;
    const changedLead = rounds.A!.leads.find((id) => initialLeads.has(id) && !changedIn("leads", "B", "C").has(id))!;
    expect([newLead, changedLead].every((id) => id !== undefined)).toBe(true);
    for (const [id, present] of [[newLead, false], [changedLead, true]] as const) {
      const explained = await explain("leads", id);
      expect(explained, id).toMatchObject({ present, verdict: "ahead-of-watermark", healed_by_audit: null, ahead_of_watermark: { audit_id: audit.id, watermark: watermarksBeforeAudit.leads } });
      expect(explained.detail, id).toMatch(/^Changed at the source after the last sync .*; the next sync brings it\.$/);
      expect(explained.detail, id).not.toMatch(/missed|late|watermark/i);
    }
    // The late commit is what the audit healed, and explain says so.
    expect(await explain("leads", LATE_LEAD)).toMatchObject({ verdict: "healed-by-audit", healed_by_audit: { audit_id: audit.id, cause: "missed" } });
  });

  test("the next sync brings what was ahead (the source changing during it too), and an audit after it heals nothing", async () => {
    clock.moveTo(NOW + 15 * MINUTE);
    // D: while the next sync reads, after it read contacts and leads.
    const roundD = source.beforeNext("/tasks", () => void (rounds.D = source.mutate(new Date(NOW + 12 * MINUTE))));
    expect((await harness.sync(connection)).status).toBe("succeeded");
    await roundD;
    for (const id of changedIn("leads", "A", "B", "C")) {
      if (rounds.D!.leads.includes(id)) continue;
      expect((await explain("leads", id)).verdict, id).toMatch(/^(current|soft-deleted)$/);
    }
    const again = await runAudit();
    for (const entity of AUDIT_ENTITIES) expect(row(again, entity).healed, entity).toEqual({ missed: 0, stale: 0, changed_without_advancing: 0 });
    // Only D's contacts and leads are ahead: the sync read its tasks and events after D.
    expect(row(again, "contacts").ahead_of_watermark).toBe(changedIn("contacts", "D").size);
    expect(row(again, "leads").ahead_of_watermark).toBe(changedIn("leads", "D").size);
    for (const entity of ["tasks", "calls", "events"] as const) expect(row(again, entity).ahead_of_watermark, entity).toBe(0);
  });
});
