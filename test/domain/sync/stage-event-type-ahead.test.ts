import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamoDbHistoryStore } from "../../../lambdas/adapters/dynamodb/history/dynamodb-history-store";
import { eventRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../../builders/source-records";
import { useScriptedCrmSource } from "../../support/scripted-crm-source";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";

/*
 * The stage-event-type setting on an events page fetched ahead (issue 37): the
 * page's request left during the previous page's commit, so the page task did
 * not read the connection itself; the setting comes with the early request's
 * own connection read, and the page still gives only the named type's moves.
 */

const TOKEN = "stage-type-ahead-3b8d";
const SETTING = "Pipeline Move";
const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
/** 100 notes fill events page 1; page 2 holds one event of the named type and one the default detection would take. */
const events = () => [
  ...Array.from({ length: 100 }, (_, i) => eventRecord({ id: `n${i}`, lead_id: "L1", type: "note", value_before: null, value_after: "called", created_at: stamp(i), updated_at: stamp(i) })),
  eventRecord({ id: "e-named", lead_id: "L1", type: SETTING, value_before: "a", value_after: "b", created_at: stamp(200), updated_at: stamp(200) }),
  eventRecord({ id: "e-default", lead_id: "L2", type: "stage_changed", value_before: "a", value_after: "b", created_at: stamp(201), updated_at: stamp(201) }),
];
const source = useScriptedCrmSource(TOKEN, () => ({
  pipelines: [pipelineRecord({ id: "p1", stages: [stageRecord({ id: "a", kind: "open", sort: 1 }), stageRecord({ id: "b", kind: "open", sort: 2 })] })],
  users: [userRecord()],
  contacts: [],
  leads: ["L1", "L2"].map((id) => leadRecord({ id, pipeline_id: "p1", stage_id: "b", updated_at: stamp(0) })),
  events: events(),
}));

let harness: SyncHarness;
beforeAll(async () => {
  harness = await createSyncHarness({ fetchAhead: true });
});
afterAll(async () => {
  await harness.close();
});

describe("the stage-event-type setting on a page fetched ahead", () => {
  test("events page 2, fetched ahead, gives a reported move only for the named type", async () => {
    const connection = { ...(await harness.addConnection({ baseUrl: source.server.baseUrl, token: TOKEN, syncSince: "2020-01-01T00:00:00.000Z" })), stage_event_type: SETTING };
    await harness.connections.put(connection);
    expect((await harness.sync(connection)).status).toBe("succeeded");
    expect(source.server.requests.filter((request) => request.path === "/events").map((request) => Number(request.query["page"]))).toEqual([1, 2]);
    const reported = (await new DynamoDbHistoryStore({ client: harness.client, tableName: harness.tableName }).allTransitions(connection.id)).filter((t) => t.source === "reported");
    expect(reported.map((t) => [t.lead_id, t.from_stage_id, t.to_stage_id, t.event_id])).toEqual([["L1", "a", "b", "e-named"]]);
  }, 120_000);
});
