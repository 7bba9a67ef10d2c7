import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { drift, type DriftSummary } from "../../../bin/reference-source/drift";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import type { AuditSummary } from "../../../lambdas/domain/core/audit-summary";
import { AUDIT_ENTITIES, type AuditEntity } from "../../../lambdas/domain/core/run-mode";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { preparePage } from "../../../lambdas/domain/ingestion/prepare-page";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import { DynamoDbNotificationStore } from "../../../lambdas/adapters/dynamodb/notifications/dynamodb-notification-store";
import { explainRecord } from "../../../lambdas/domain/onboarding/explain-record";
import { NotFoundError } from "../../../lambdas/domain/onboarding/onboarding-errors";
import { rejectedWith } from "../../support/rejected-with";
import { changedSince } from "../../../bin/reference-source/paging";
import { comparedAt } from "../../../bin/reference-source/endpoints";
import type { Dataset } from "../../../bin/reference-source/records";
import { FINDING_SAMPLE_IDS, WATERMARK_SAFETY_MARGIN_SECONDS } from "../../../lambdas/domain/core/limits";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { connectionResource } from "../../../lambdas/domain/onboarding/connection-resource";
import { REQUIRED_ENTITIES } from "../../../lambdas/domain/source-contract/entity-catalog";
import { staleNotice } from "../../../lambdas/domain/sync/stale-notice";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { SteppedClock } from "../../support/stepped-clock";

/*
 * Issue 22's scenario on real engines: the reference source, a sync, the
 * source drifts (drift.ts: late commits, a change that does not advance
 * updated_at, an updated_at that does not parse, a task linked to nothing, a
 * lead that vanishes), a second sync, then an audit through the same state
 * machines. No clock: every wait is on the engine's own result promises, and
 * the domain's time is a clock the test moves (staleness), never waited on.
 */

const NOW = new Date("2026-06-01T00:00:00Z");
const SIZES = { pipelines: 2, users: 5, contacts: 150, leads: 260, tasks: 120, calls: 80, events: 150 };
const SYNC_SINCE = "2025-01-01T00:00:00.000Z";
/** The dispatcher's interval: freshness_hours defaults to twice it (2 h). */
const SCHEDULE = "1h";
const HOUR_MS = 3_600_000;

const clock = new SteppedClock(NOW.getTime() + 2 * 86_400_000);

let harness: SyncHarness;
let source: ReferenceSource;
let connection: StoredConnection;
let drifted: DriftSummary;
let watermarksBefore: Record<string, string | null>;
/** The watermarks the first sync left: the second sync asks from each, less the safety margin. */
let watermarksAfterFirst: Record<string, string | null>;
let audit: AuditSummary;
let auditId: string;
/** The audit the stale test runs after moving the clock (later tests read it as the newest). */
let secondAuditId: string;
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

type Doc = Record<string, unknown>;
const INCREMENTAL = new Set(["contacts", "leads", "tasks", "calls", "events"]);
const NAMES_A_USER = new Set(["contacts", "leads", "tasks", "calls"]);
const unreadable = (value: unknown) => typeof value !== "string" || Number.isNaN(Date.parse(value));

/**
 * The records of `entity` the source served a run, in the order served: the
 * whole list for /pipelines and /users (stages inside pipelines), else those
 * at or after `since` in the source's own order (its paging.ts).
 */
function served(entity: string, data: Dataset, since: number | null): Doc[] {
  if (entity === "pipelines" || entity === "users") return data[entity] as unknown as Doc[];
  if (entity === "stages") return data.pipelines.flatMap((pipeline) => pipeline.stages) as unknown as Doc[];
  return changedSince(data[entity as AuditEntity], since, comparedAt) as unknown as Doc[];
}

/** Where a run's updated_since starts: the watermark less the safety margin, floored to the second; sync_since on the first. */
const sinceOf = (watermark: string | null | undefined) =>
  watermark == null ? Date.parse(SYNC_SINCE) : Math.floor((Date.parse(watermark) - WATERMARK_SAFETY_MARGIN_SECONDS * 1000) / 1000) * 1000;

/**
 * The findings a row must hold for the records served, worked out here from
 * the spec's silent rules on the source's own data (not with the sync's
 * checks): every record hitting a rule counted once, the first
 * FINDING_SAMPLE_IDS ids as served, errors first, then by rule id. The
 * generator writes no over-long text and no other unreadable timestamp, so a
 * record.text-truncated or record.timestamp-format finding fails the equality.
 */
function expectedFindings(entity: string, records: readonly Doc[], data: Dataset) {
  const users = new Set(data.users.map((user) => user.id));
  const stages = new Set(data.pipelines.flatMap((pipeline) => pipeline.stages.map((stage) => `${pipeline.id}/${stage.id}`)));
  const hits: Record<string, (record: Doc) => boolean> = {
    "record.updated-at": (r) => INCREMENTAL.has(entity) && unreadable(r["updated_at"]) && (entity !== "events" || unreadable(r["created_at"])),
    "task.unlinked": (r) => entity === "tasks" && !r["lead_id"] && !r["contact_id"],
    "call.direction-defaulted": (r) => entity === "calls" && r["direction"] !== "in" && r["direction"] !== "out",
    "record.custom-fields-object": (r) =>
      (entity === "contacts" || entity === "leads") && r["custom_fields"] != null && (typeof r["custom_fields"] !== "object" || Array.isArray(r["custom_fields"])),
    "reference.user": (r) => NAMES_A_USER.has(entity) && typeof r["responsible_user_id"] === "string" && r["responsible_user_id"] !== "" && !users.has(r["responsible_user_id"]),
    "reference.stage": (r) => entity === "leads" && r["stage_id"] != null && !stages.has(`${String(r["pipeline_id"])}/${String(r["stage_id"])}`),
  };
  return Object.entries(hits)
    .map(([rule, hit]) => ({ rule, ids: records.filter(hit).map((record) => record["id"] as string) }))
    .filter(({ ids }) => ids.length > 0)
    .map(({ rule, ids }) => ({ rule, severity: RULES_BY_ID.get(rule)!.severity, count: ids.length, sample_ids: ids.slice(0, FINDING_SAMPLE_IDS), detail: expect.stringContaining(ids[0]!) }))
    .sort((a, b) => Number(b.severity === "error") - Number(a.severity === "error") || (a.rule < b.rule ? -1 : 1));
}

/** The largest readable compared timestamp among records: what the entity's watermark must be once they are all stored. */
function maxCompared(entity: AuditEntity, records: readonly Doc[]): string {
  const times = records.map((r) => Date.parse(String(r["updated_at"]))).map((t, i) => (Number.isNaN(t) && entity === "events" ? Date.parse(String(records[i]!["created_at"])) : t));
  return new Date(Math.max(...times.filter((t) => !Number.isNaN(t)))).toISOString();
}

beforeAll(async () => {
  harness = await createSyncHarness({ clock, schedule: SCHEDULE });
  source = await startReferenceSource({ seed: 22, sizes: SIZES, now: NOW });
  connection = await harness.addConnection({ baseUrl: source.url, token: source.token, syncSince: SYNC_SINCE });
  before = JSON.parse(JSON.stringify(source.dataset)) as typeof source.dataset;
  syncs.push(await harness.sync(connection));
  watermarksAfterFirst = await watermarks();
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

  test("the run summaries count each rule exactly: every entity row of both syncs holds the findings of the records served to it, and no other", () => {
    const [first, second] = syncs as [RunSummary, RunSummary];
    for (const run of syncs) expect(run.entities.map((each) => each.entity).sort()).toEqual([...SUMMARY_ENTITIES].sort());
    for (const row of first.entities) {
      const records = served(row.entity, before, sinceOf(null));
      expect(row.records, `first sync ${row.entity}`).toBe(records.length);
      expect(row.findings, `first sync ${row.entity}`).toEqual(expectedFindings(row.entity, records, before));
    }
    // The second sync reads from each watermark less the margin: the drifted records past it, and the margin's re-read.
    for (const row of second.entities) {
      const records = served(row.entity, source.dataset, sinceOf(watermarksAfterFirst[row.entity]));
      expect(row.records, `second sync ${row.entity}`).toBe(records.length);
      expect(row.findings, `second sync ${row.entity}`).toEqual(expectedFindings(row.entity, records, source.dataset));
    }
    // Not vacuous: the seeded data has tasks linked to nothing, and the drift's two tasks are the second sync's findings, each under its rule.
    const unlinkedBefore = before.tasks.filter((task) => !task.lead_id && !task.contact_id).map((task) => task.id);
    expect(entityRow(first, "tasks")!.findings.map((each) => [each.rule, each.count])).toEqual([["task.unlinked", unlinkedBefore.length]]);
    expect(entityRow(second, "tasks")!.findings.map((each) => [each.rule, each.sample_ids])).toEqual([
      ["record.updated-at", [drifted.unparseableTask]],
      ["task.unlinked", [drifted.unlinkedTask]],
    ]);
  });

  test("the audit's entity rows count each rule exactly over every record it read from sync_since", () => {
    for (const entry of audit.entities) {
      const records = served(entry.entity, source.dataset, sinceOf(null));
      expect(entry.source_records, entry.entity).toBe(records.length);
      expect(entry.findings, entry.entity).toEqual(expectedFindings(entry.entity, records, source.dataset));
    }
    const unlinkedNow = source.dataset.tasks.filter((task) => !task.lead_id && !task.contact_id).map((task) => task.id);
    // Not vacuous: the unparseable task, and every task linked to nothing (the seeded ones and the drift's).
    expect(row("tasks").findings.map((each) => [each.rule, each.count])).toEqual([["record.updated-at", 1], ["task.unlinked", unlinkedNow.length]]);
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

  test("freshness: each audited entity's data_as_of is the audit's own last page of it, the listed-whole entities keep the second sync's, each watermark is the newest readable updated_at ever stored, and every run's end gauges the oldest data's age", async () => {
    const freshness = await harness.records.getFreshness(connection.id);
    for (const entity of AUDIT_ENTITIES) {
      const asOf = freshness[entity].data_as_of!;
      expect(asOf >= audit.started_at && asOf <= audit.finished_at!, `${entity} ${asOf}`).toBe(true);
      // Everything the source ever served is stored (the vanished lead too); the unparseable updated_at never moves it.
      expect(freshness[entity].watermark, entity).toBe(maxCompared(entity, [...(before[entity] as unknown as Doc[]), ...(source.dataset[entity] as unknown as Doc[])]));
    }
    // Not vacuous: the drift's newest readable task (the unlinked one) moved the tasks watermark; the unparseable one, served beside it, could not.
    expect(freshness.tasks.watermark).toBe(new Date(Date.parse(source.dataset.tasks.find((task) => task.id === drifted.unlinkedTask)!.updated_at)).toISOString());
    for (const entity of ["pipelines", "users"] as const) {
      const asOf = freshness[entity].data_as_of!;
      expect(asOf >= syncs[1]!.started_at && asOf <= syncs[1]!.finished_at!, `${entity} ${asOf}`).toBe(true);
      expect(freshness[entity].watermark, entity).toBeNull();
    }
    // The age of the oldest data, at each run's end (two syncs, the audit): at the audit's, at least since the second sync's /pipelines.
    const ages = harness.metrics.gauges.filter((gauge) => gauge.name === "OldestDataAgeSeconds" && gauge.properties["connection_id"] === connection.id);
    expect(ages).toHaveLength(3);
    expect(ages[2]!.seconds).toBeGreaterThanOrEqual(Math.floor((Date.parse(audit.finished_at!) - Date.parse(freshness.pipelines.data_as_of!)) / 1000));
  });

  test("stale: false after the runs; with the clock moved past freshness_hours it is true, and Connection Stale is told once, naming the entities gone stale", async () => {
    const view = () => connectionResource({ records: harness.records, clock, schedule: SCHEDULE }, connection);
    const now = await view();
    expect(now).toMatchObject({ freshness_hours: 2, stale: false });
    const required = REQUIRED_ENTITIES.map((entity) => now.freshness[entity].data_as_of!);
    // 1 ms past freshness_hours after the newest required data: every required entity is stale.
    clock.moveTo(Math.max(...required.map((at) => Date.parse(at))) + 2 * HOUR_MS + 1);
    expect((await view()).stale).toBe(true);
    // The next run's end checks: an audit re-reads contacts and leads, never /pipelines or /users, which stay stale.
    const second = await startSync(harness.startDeps, connection, { mode: "audit" });
    secondAuditId = second.runId;
    await harness.waitForRun(connection.id, secondAuditId);
    expect((await view()).stale).toBe(true);
    // A second check of the same stale state (another run's end, the tick) tells nothing more.
    await staleNotice(harness.deps, connection, await harness.records.getFreshness(connection.id), clock.now());
    const notes = await new DynamoDbNotificationStore({ client: harness.client, tableName: harness.tableName }).listLatest(connection.business_account_id, 100);
    const stale = notes.filter((note) => note.connection_id === connection.id && note.detail_type === "Connection Stale");
    expect(stale).toHaveLength(1);
    expect(stale[0]!.detail).toMatchObject({
      freshness_hours: 2,
      stale_entities: [
        { entity: "pipelines", data_as_of: now.freshness.pipelines.data_as_of },
        { entity: "users", data_as_of: now.freshness.users.data_as_of },
      ],
    });
    const logged = harness.logger.lines.filter((line) => line["detail_type"] === "Connection Stale");
    expect(logged).toHaveLength(1);
  });

  test("GET audits lists newest first and a second audit heals nothing", async () => {
    const audits = await harness.runs.listAudits(connection.id);
    expect(audits.map((entry) => entry.id)).toEqual([secondAuditId, auditId]);
    for (const entry of audits[0]!.entities) expect(entry.healed, entry.entity).toEqual({ missed: 0, stale: 0, changed_without_advancing: 0 });
    // Audits are not sync runs: the runs list holds only the two syncs.
    expect((await harness.runs.list(connection.id)).every((run) => !run.id.startsWith("audit-"))).toBe(true);
  });
});

describe("explain after the audit", () => {
  const explain = (collection: string, id: string, on: StoredConnection = connection) =>
    explainRecord({ connections: harness.connections, audits: harness.deps.audits, runs: harness.runs, keySpace: dynamoDbKeySpace, clock }, { account: on.business_account_id, connectionId: on.id, entity: collection, recordId: id, query: {} });

  test("explain says healed-by-audit for a late commit, with the cause and its updated_at against the watermark at the time", async () => {
    const late = await explain("leads", drifted.lateLeads[0]!);
    expect(late).toMatchObject({ present: true, verdict: "healed-by-audit", healed_by_audit: { audit_id: auditId, cause: "missed" } });
    expect(late.detail).toContain("absent from the store");
    expect(late.detail).toContain(`against the watermark ${late.healed_by_audit!.watermark}`);
    expect(late.healed_by_audit!.updated_at! < late.healed_by_audit!.watermark!).toBe(true);
    // Both late commits, each with its own updated_at below the watermark at the time.
    for (const id of drifted.lateLeads) {
      const each = await explain("leads", id);
      expect(each, id).toMatchObject({ present: true, verdict: "healed-by-audit", healed_by_audit: { audit_id: auditId, cause: "missed", watermark: watermarksBefore["leads"] } });
      expect(each.healed_by_audit!.updated_at! < each.healed_by_audit!.watermark!, id).toBe(true);
    }
    expect(await explain("leads", drifted.lateChangedLead)).toMatchObject({ verdict: "healed-by-audit", healed_by_audit: { audit_id: auditId, cause: "stale" } });
    const unadvanced = await explain("contacts", drifted.unadvancedContact);
    expect(unadvanced).toMatchObject({ verdict: "healed-by-audit", healed_by_audit: { cause: "changed_without_advancing" } });
    expect(unadvanced.detail).toContain("without its updated_at advancing");
  });

  test("explain says updated-at-unparseable for a stored record whose updated_at does not parse", async () => {
    expect(await explain("tasks", drifted.unparseableTask)).toMatchObject({ present: true, verdict: "updated-at-unparseable", updated_at: null, findings: ["record.updated-at"] });
  });

  test("explain says current for each task linked to nothing, naming task.unlinked, the rule its last write hit", async () => {
    const unlinked = source.dataset.tasks.filter((task) => !task.lead_id && !task.contact_id).map((task) => task.id);
    expect(unlinked).toContain(drifted.unlinkedTask);
    for (const id of unlinked) {
      const each = await explain("tasks", id);
      expect(each, id).toMatchObject({ present: true, verdict: "current", healed_by_audit: null, findings: ["task.unlinked"] });
      expect(each.detail, id).toContain("task.unlinked");
    }
  });

  test("explain says soft-deleted for a lead the source deleted, and current for an ordinary record", async () => {
    const deleted = source.dataset.leads.find((lead) => lead.is_deleted)!;
    expect(await explain("leads", deleted.id)).toMatchObject({ present: true, verdict: "soft-deleted" });
    const ordinary = source.dataset.contacts.at(-1)!;
    expect(await explain("contacts", ordinary.id)).toMatchObject({ present: true, verdict: "current", healed_by_audit: null });
  });

  test("explain of the vanished lead: current, still stored, and the last audit did not find it at the source", async () => {
    const vanished = await explain("leads", drifted.vanishedLead);
    // Marked by the newest audit that looked (the stale test ran a second one).
    expect(vanished).toMatchObject({ present: true, verdict: "current", healed_by_audit: null, findings: [], absent_in_source: { audit_id: secondAuditId } });
    expect(vanished.last_audit!.id).toBe(secondAuditId);
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
