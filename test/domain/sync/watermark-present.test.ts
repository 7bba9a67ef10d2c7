import { UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { CLOCK_SKEW_ALLOWANCE_SECONDS } from "../../../lambdas/domain/core/limits";
import { explainRecord } from "../../../lambdas/domain/onboarding/explain-record";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import { ATTR, watermarkPartitionKey, watermarkSortKey } from "../../../lambdas/adapters/dynamodb/records/keys";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { useScriptedCrmSource } from "../../support/scripted-crm-source";
import { envelope } from "../../support/source-server";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";
import { SteppedClock } from "../../support/stepped-clock";

/*
 * Issue 32 item 2 on real engines (DynamoDB Local, the ASL on
 * aws-local-stepfunctions, a loopback source): a record dated 9999, a
 * watermark already in the future, a record dated year 0000. The domain's
 * clock is the test's; nothing waits on it.
 */

const TOKEN = "src-watermark-present-6a1c";
const T = Date.parse("2026-11-27T12:00:00.000Z");
const MINUTE = 60_000;
const PLACEHOLDER = "9999-12-31T23:59:59Z";
/** The spec's form of updated_since: `<YYYY-MM-DD>T<HH:MM:SS>+<HH:MM>`. */
const SPEC_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;


const iso = (ms: number) => new Date(ms).toISOString();
const clock = new SteppedClock(T);
const source = useScriptedCrmSource(TOKEN, () => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: [] }));
let harness: SyncHarness;

beforeAll(async () => {
  harness = await createSyncHarness({ clock });
});
afterAll(() => harness.close());

const connect = () => harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN, syncSince: "2026-01-01T00:00:00Z" });
/** The updated_since of every request to `path` since the test began, with the clock's reading when the run that sent it ended. */
const sentSince = (path: string) => source.server.requests.filter((request) => request.path === path).map((request) => request.query["updated_since"]!);

async function sync(connection: StoredConnection) {
  const summary = await harness.sync(connection);
  expect(summary.status, JSON.stringify(summary.entities)).toBe("succeeded");
  return summary;
}

describe("the watermark never passes the present", () => {
  test("record.updated-at-future: a lead dated 9999 is a finding by id, stored as sent; the next sync still pulls a change made today, and updated_since is never later than now plus the allowance", async () => {
    const connection = await connect();
    source.data.leads = [
      leadRecord({ id: "lead-yesterday", updated_at: iso(T - 24 * 60 * MINUTE) }),
      leadRecord({ id: "lead-an-hour-ago", updated_at: iso(T - 60 * MINUTE) }),
      leadRecord({ id: "lead-placeholder", updated_at: PLACEHOLDER }),
    ];
    const first = await sync(connection);
    expect(entityRow(first, "leads")!.findings).toContainEqual(expect.objectContaining({ rule: "record.updated-at-future", count: 1, sample_ids: ["lead-placeholder"] }));
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe(iso(T - 60 * MINUTE));
    const stored = await harness.records.getRecord(connection.id, "leads", ["lead-placeholder"]);
    expect(stored.record).toMatchObject({ updated_at: "9999-12-31T23:59:59.000Z" });

    // A change made today, after the first sync.
    clock.moveTo(T + 5 * MINUTE);
    source.data.leads[0] = leadRecord({ id: "lead-yesterday", name: "Renamed today", updated_at: iso(T + 4 * MINUTE) });
    const second = await sync(connection);
    expect((await harness.records.getRecord(connection.id, "leads", ["lead-yesterday"])).record).toMatchObject({ name: "Renamed today" });
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe(iso(T + 4 * MINUTE));
    // The placeholder is sent again on every run (its date is past every updated_since), and counted again.
    expect(entityRow(second, "leads")!.findings).toContainEqual(expect.objectContaining({ rule: "record.updated-at-future", sample_ids: ["lead-placeholder"] }));

    const asked = sentSince("/leads");
    expect(asked).toEqual(["2026-01-01T00:00:00+00:00", "2026-11-27T10:58:00+00:00"]);
    for (const since of asked) {
      expect(since).toMatch(SPEC_FORM);
      expect(Date.parse(since)).toBeLessThanOrEqual(clock.lastReading + CLOCK_SKEW_ALLOWANCE_SECONDS * 1000);
    }

    const explained = await explainRecord({ connections: harness.connections, audits: harness.deps.audits, runs: harness.runs, keySpace: dynamoDbKeySpace, clock }, { account: connection.business_account_id, connectionId: connection.id, entity: "leads", recordId: "lead-placeholder", query: {} });
    expect(explained).toMatchObject({ present: true, verdict: "updated-at-future", findings: ["record.updated-at-future"] });
    expect(explained.detail).toContain("later than the present");
  });

  test("a watermark already in the future heals on the next run: read again from sync_since, then a trusted watermark written over it; an audit in between leaves it and heals nothing", async () => {
    const connection = await connect();
    source.data.contacts = [contactRecord({ id: "contact-1", updated_at: iso(T - 60 * MINUTE) })];
    source.data.leads = [leadRecord({ id: "lead-1", updated_at: iso(T - 60 * MINUTE) }), leadRecord({ id: "lead-2", updated_at: iso(T - 30 * MINUTE) })];
    await sync(connection);
    // Data written before this rule existed: a watermark of 9999, planted in the store as a page once wrote it.
    await harness.client.send(
      new UpdateItemCommand({
        TableName: harness.tableName,
        Key: { [ATTR.pk]: { S: watermarkPartitionKey(connection.id) }, [ATTR.sk]: { S: watermarkSortKey("leads") } },
        UpdateExpression: "SET #value = :value",
        ExpressionAttributeNames: { "#value": ATTR.value },
        ExpressionAttributeValues: { ":value": { S: "9999-12-31T23:59:59.000Z" } },
      }),
    );
    // Changes made since, which a run asking from 9999 would never see.
    clock.moveTo(T + 10 * MINUTE);
    source.data.leads[0] = leadRecord({ id: "lead-1", name: "Changed since", updated_at: iso(T + 5 * MINUTE) });
    source.data.leads.push(leadRecord({ id: "lead-3", updated_at: iso(T + 6 * MINUTE) }));

    // An audit leaves the watermark as it is; against no trusted watermark both changes are the next sync's, not misses.
    const audit = await startSync(harness.startDeps, connection, { mode: "audit" });
    await harness.waitForRun(connection.id, audit.runId);
    const leadsRow = (await harness.runs.getAudit(connection.id, audit.runId))!.entities.find((row) => row.entity === "leads")!;
    expect(leadsRow).toMatchObject({ healed: { missed: 0, stale: 0, changed_without_advancing: 0 }, ahead_of_watermark: 2 });
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe("9999-12-31T23:59:59.000Z");

    source.server.requests.length = 0;
    await sync(connection);
    expect(sentSince("/leads")).toEqual(["2026-01-01T00:00:00+00:00"]);
    // The contacts' trusted watermark is used as before.
    expect(sentSince("/contacts")).toEqual(["2026-11-27T10:58:00+00:00"]);
    expect(await harness.records.getWatermark(connection.id, "leads")).toBe(iso(T + 6 * MINUTE));
    expect((await harness.records.getRecord(connection.id, "leads", ["lead-1"])).record).toMatchObject({ name: "Changed since" });
    expect((await harness.records.getRecord(connection.id, "leads", ["lead-3"])).record).not.toBeNull();
    expect(harness.logger.lines).toContainEqual(expect.objectContaining({ message: "watermark past the present: read again from sync_since", connection_id: connection.id, entity: "leads" }));
  });

  test("updated_since is always YYYY-MM-DDTHH:MM:SS+HH:MM with a four-digit year: after a record dated year 0000 the next request falls back to sync_since", async () => {
    const connection = await connect();
    // A source that ignores updated_since for this record (a placeholder date, as some CRMs write for "unknown").
    source.fault = (request) => (request.path === "/contacts" ? { json: envelope([contactRecord({ id: "contact-year-0", updated_at: "0000-01-01T00:00:00Z" })]) } : undefined);
    await sync(connection);
    expect(await harness.records.getWatermark(connection.id, "contacts")).toBe("0000-01-01T00:00:00.000Z");
    await sync(connection);
    const asked = sentSince("/contacts");
    expect(asked).toEqual(["2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00"]);
    for (const since of asked) expect(since).toMatch(SPEC_FORM);
  });
});
