import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { drift, type DriftSummary } from "../../bin/reference-source/drift";
import { startReferenceSource, type ReferenceSource } from "../../bin/reference-source/start-reference-source";
import type { AuditSummary } from "../../lambdas/core/audit-summary";
import { AUDIT_ENTITIES, type AuditEntity } from "../../lambdas/core/run-mode";
import type { StoredConnection } from "../../lambdas/core/connection";
import { preparePage } from "../../lambdas/ingestion/prepare-page";
import { startSync } from "../../lambdas/sync/start-sync";
import { createSyncHarness, entityRow, type SyncHarness } from "../support/sync-harness";
import type { RunSummary } from "../../lambdas/core/run-summary";
import { DynamoDbNotificationStore } from "../../lambdas/notifications/dynamodb-notification-store";
import { explainRecord } from "../../lambdas/onboarding/explain-record";
import { NotFoundError } from "../../lambdas/onboarding/onboarding-errors";
import { rejectedWith } from "../support/rejected-with";

/*
 * Issue 22's scenario on real engines: the reference source, a sync, the
 * source drifts (drift.ts: late commits, a change that does not advance
 * updated_at, an updated_at that does not parse, a task linked to nothing, a
 * lead that vanishes), a second sync, then an audit through the same state
 * machines. No clock: every wait is on the engine's own result promises.
 */

const NOW = new Date("2026-06-01T00:00:00Z");
const SIZES = { pipelines: 2, users: 5, contacts: 150, leads: 260, tasks: 120, calls: 80, events: 150 };

let harness: SyncHarness;
let source: ReferenceSource;
let connection: StoredConnection;
let drifted: DriftSummary;
let watermarksBefore: Record<string, string | null>;
let audit: AuditSummary;
let auditId: string;
/** The source's data set before the drift, and the two syncs' summaries (before and after it). */
let before: ReferenceSource["dataset"];
const syncs: RunSummary[] = [];

const row = (entity: AuditEntity) => audit.entities.find((entry) => entry.entity === entity)!;

async function watermarks(): Promise<Record<string, string | null>> {
  return Object.fromEntries(await Promise.all(AUDIT_ENTITIES.map(async (entity) => [entity, await harness.records.getWatermark(connection.id, entity)])));
}

/** What the service would store for everything the source serves now: its canonical documents, by collection and id. */
function sourceDocs(entity: AuditEntity): Map<string, unknown> {
  const records = JSON.parse(JSON.stringify(source.dataset[entity])) as unknown[];
  const writes = records.flatMap((record) => preparePage({ entity, page: 1, data: [record], previous: null, stageKinds: new Map() }).writes);
  return new Map(writes.filter((write) => write.collection === entity).map((write) => [write.key[0], write.doc]));
}

beforeAll(async () => {
  harness = await createSyncHarness();
  source = await startReferenceSource({ seed: 22, sizes: SIZES, now: NOW });
  connection = await harness.addConnection({ baseUrl: source.url, token: source.token, syncSince: "2025-01-01T00:00:00.000Z" });
  before = JSON.parse(JSON.stringify(source.dataset)) as typeof source.dataset;
  syncs.push(await harness.sync(connection));
  drifted = drift(source.dataset, new Date(NOW.getTime() + 86_400_000));
  syncs.push(await harness.sync(connection));
  expect(syncs.map((run) => run.status)).toEqual(["succeeded", "succeeded"]);
  watermarksBefore = await watermarks();
  const started = await startSync(harness.startDeps, connection, { mode: "audit" });
  expect(started.started).toBe(true);
  auditId = started.runId;
  await harness.waitForRun(connection.id, auditId);
  audit = (await harness.runs.getAudit(connection.id, auditId))!;
}, 120_000);

afterAll(async () => {
  await source.close();
  await harness.close();
});

describe("an audit after the source drifted", () => {
  test("audits run through the sync's own state machines: one Standard execution of the same ARN, named by the audit id", () => {
    const parents = harness.engine.parent.list().filter((execution) => (execution.input as { run_id?: string }).run_id === auditId);
    expect(parents.length).toBeGreaterThan(0);
    expect(audit.status).toBe("succeeded");
    expect(audit.entities.map((entry) => entry.entity)).toEqual([...AUDIT_ENTITIES]);
  });

  test("audit heals missed, stale and changed_without_advancing records and counts each by cause", () => {
    expect(row("leads").healed).toEqual({ missed: 2, stale: 1, changed_without_advancing: 0 });
    expect(row("contacts").healed).toEqual({ missed: 0, stale: 0, changed_without_advancing: 1 });
    expect(row("tasks").healed).toEqual({ missed: 0, stale: 0, changed_without_advancing: 0 });
    expect(row("leads").sample_ids).toEqual(expect.arrayContaining([...drifted.lateLeads, drifted.lateChangedLead]));
    expect(row("contacts").sample_ids).toContain(drifted.unadvancedContact);
  });

  test("after an audit the stored set equals the source's, the vanished lead aside", async () => {
    for (const entity of AUDIT_ENTITIES) {
      const stored = new Map((await harness.listAll(connection.id, entity)).map((doc) => [doc["id"] as string, doc]));
      const expected = sourceDocs(entity);
      if (entity === "leads") {
        expect(stored.has(drifted.vanishedLead)).toBe(true);
        stored.delete(drifted.vanishedLead);
      }
      expect([...stored.keys()].sort(), entity).toEqual([...expected.keys()].sort());
      // Leads carry the won/lost derived from stored stage kinds: compare what the source sent.
      for (const [id, doc] of expected) {
        const { is_won: _w, is_lost: _l, ...held } = stored.get(id) as Record<string, unknown>;
        const { is_won: _sw, is_lost: _sl, ...sent } = doc as Record<string, unknown>;
        expect(held, `${entity} ${id}`).toEqual(sent);
      }
    }
  });

  test("absent_in_source counts leads the source no longer returns and never deletes them", async () => {
    expect(row("leads").absent_in_source).toBe(1);
    expect(row("leads").sample_ids).toContain(drifted.vanishedLead);
    const leads = await harness.listAll(connection.id, "leads");
    expect(leads.some((lead) => lead["id"] === drifted.vanishedLead)).toBe(true);
    expect(row("leads").stored_records).toBe(source.dataset.leads.length + 1);
    expect(row("leads").source_records).toBe(source.dataset.leads.length);
  });

  test("an audit never moves a watermark back", async () => {
    const after = await watermarks();
    for (const entity of AUDIT_ENTITIES) {
      const before = watermarksBefore[entity] ?? null;
      if (before !== null) expect(after[entity]! >= before, entity).toBe(true);
    }
  });

  test("the run summaries count each rule exactly: the first sync the source's own unlinked tasks, the second the drifted task with an unparseable updated_at and the new unlinked one", () => {
    const finding = (run: RunSummary, entity: string, rule: string) => entityRow(run, entity)?.findings.find((each) => each.rule === rule);
    const unlinkedBefore = before.tasks.filter((task) => !task.lead_id && !task.contact_id).map((task) => task.id);
    const first = finding(syncs[0]!, "tasks", "task.unlinked");
    if (unlinkedBefore.length === 0) expect(first).toBeUndefined();
    else expect(first).toMatchObject({ count: unlinkedBefore.length, sample_ids: unlinkedBefore.slice(0, 5) });
    for (const row of syncs[0]!.entities) expect(row.findings.map((each) => each.rule), row.entity).not.toContain("record.updated-at");
    // The second sync pulls what moved past the watermark (and the margin's re-read): each drifted task once, under its rule.
    expect(finding(syncs[1]!, "tasks", "record.updated-at")).toMatchObject({ count: 1, sample_ids: [drifted.unparseableTask] });
    expect(finding(syncs[1]!, "tasks", "task.unlinked")).toMatchObject({ count: 1, sample_ids: [drifted.unlinkedTask] });
  });

  test("events: each sync's end sent Sync Run Finished and the audit's end Audit Finished with its heal counts by cause; none carries the token and no connection went stale", async () => {
    const notes = await new DynamoDbNotificationStore({ client: harness.client, tableName: harness.tableName }).listLatest(connection.business_account_id, 100);
    const ours = notes.filter((note) => note.connection_id === connection.id);
    const finished = ours.find((note) => note.id === `audit-finished:${connection.id}:${auditId}`);
    expect(finished).toMatchObject({
      detail_type: "Audit Finished",
      detail: { audit_id: auditId, status: "succeeded", healed: { missed: 2, stale: 1, changed_without_advancing: 1 }, absent_in_source: 1 },
    });
    for (const run of syncs) expect(ours.some((note) => note.id === `run-finished:${connection.id}:${run.id}` && note.detail_type === "Sync Run Finished"), run.id).toBe(true);
    expect(ours.filter((note) => note.detail["run_id"] === auditId)).toEqual([]);
    expect(ours.filter((note) => note.detail_type === "Connection Stale")).toEqual([]);
    expect(JSON.stringify(notes)).not.toContain(source.token);
    expect(JSON.stringify(harness.logger.lines)).not.toContain(source.token);
  });

  test("freshness: each audited entity's data_as_of is the audit's own last page of it, the listed-whole entities keep the second sync's, and every run's end gauges the oldest data's age", async () => {
    const freshness = await harness.records.getFreshness(connection.id);
    for (const entity of AUDIT_ENTITIES) {
      const asOf = freshness[entity].data_as_of!;
      expect(asOf >= audit.started_at && asOf <= audit.finished_at!, `${entity} ${asOf}`).toBe(true);
    }
    for (const entity of ["pipelines", "users"] as const) {
      const asOf = freshness[entity].data_as_of!;
      expect(asOf >= syncs[1]!.started_at && asOf <= syncs[1]!.finished_at!, `${entity} ${asOf}`).toBe(true);
    }
    // The age of the oldest data, at each run's end (two syncs, the audit): at the audit's, at least since the second sync's /pipelines.
    const ages = harness.metrics.gauges.filter((gauge) => gauge.name === "OldestDataAgeSeconds" && gauge.properties["connection_id"] === connection.id);
    expect(ages).toHaveLength(3);
    expect(ages[2]!.seconds).toBeGreaterThanOrEqual(Math.floor((Date.parse(audit.finished_at!) - Date.parse(freshness.pipelines.data_as_of!)) / 1000));
  });

  test("GET audits lists newest first and a second audit heals nothing", async () => {
    const second = await startSync(harness.startDeps, connection, { mode: "audit" });
    await harness.waitForRun(connection.id, second.runId);
    const audits = await harness.runs.listAudits(connection.id);
    expect(audits.map((entry) => entry.id)).toEqual([second.runId, auditId]);
    for (const entry of audits[0]!.entities) expect(entry.healed, entry.entity).toEqual({ missed: 0, stale: 0, changed_without_advancing: 0 });
    // Audits are not sync runs: the runs list holds only the two syncs.
    expect((await harness.runs.list(connection.id)).every((run) => !run.id.startsWith("audit-"))).toBe(true);
  });
});

describe("explain after the audit", () => {
  const explain = (collection: string, id: string, on: StoredConnection = connection) =>
    explainRecord({ connections: harness.connections, audits: harness.deps.audits, runs: harness.runs }, on.business_account_id, on.id, collection, id, {});

  test("explain says healed-by-audit for a late commit, with the cause and its updated_at against the watermark at the time", async () => {
    const late = await explain("leads", drifted.lateLeads[0]!);
    expect(late).toMatchObject({ present: true, verdict: "healed-by-audit", healed_by_audit: { audit_id: auditId, cause: "missed" } });
    expect(late.detail).toContain("absent from the store");
    expect(late.detail).toContain(`against the watermark ${late.healed_by_audit!.watermark}`);
    expect(late.healed_by_audit!.updated_at! < late.healed_by_audit!.watermark!).toBe(true);
    expect(await explain("leads", drifted.lateChangedLead)).toMatchObject({ verdict: "healed-by-audit", healed_by_audit: { cause: "stale" } });
    const unadvanced = await explain("contacts", drifted.unadvancedContact);
    expect(unadvanced).toMatchObject({ verdict: "healed-by-audit", healed_by_audit: { cause: "changed_without_advancing" } });
    expect(unadvanced.detail).toContain("without its updated_at advancing");
  });

  test("explain says updated-at-unparseable for a stored record whose updated_at does not parse", async () => {
    expect(await explain("tasks", drifted.unparseableTask)).toMatchObject({ present: true, verdict: "updated-at-unparseable", updated_at: null });
  });

  test("explain says soft-deleted for a lead the source deleted, and current for an ordinary record", async () => {
    const deleted = source.dataset.leads.find((lead) => lead.is_deleted)!;
    expect(await explain("leads", deleted.id)).toMatchObject({ present: true, verdict: "soft-deleted" });
    const ordinary = source.dataset.contacts.at(-1)!;
    expect(await explain("contacts", ordinary.id)).toMatchObject({ present: true, verdict: "current", healed_by_audit: null });
  });

  test("explain of the vanished lead: still stored, and the last audit did not find it at the source", async () => {
    const vanished = await explain("leads", drifted.vanishedLead);
    // Marked by the newest audit that looked (the test above ran a second one).
    expect(vanished).toMatchObject({ present: true, absent_in_source: { audit_id: vanished.last_audit!.id } });
    expect(vanished.detail).toContain("did not find it at the source");
  });

  test("explain says never-returned with present false for a record not stored, naming the last audit or that none has run", async () => {
    const missing = await explain("leads", "lead-that-never-was");
    expect(missing).toMatchObject({ present: false, verdict: "never-returned" });
    expect(missing.detail).toContain(missing.last_audit!.id);
    const fresh = await harness.addConnection({ baseUrl: source.url, token: source.token });
    const none = await explain("leads", "lead-1", fresh);
    expect(none).toMatchObject({ present: false, verdict: "never-returned", last_audit: null });
    expect(none.detail).toContain("No audit has run yet");
  });

  test("explain of an unknown collection or an id over the key limit is a 404, as on the other routes", async () => {
    await rejectedWith(explain("widgets", "x"), NotFoundError);
    await rejectedWith(explain("leads", "x".repeat(1025)), NotFoundError);
  });
});
