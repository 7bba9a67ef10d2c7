import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type SourcedConnection } from "../../support/api-harness";

const SOURCE_TOKEN = "src-history-events-9d3f";
const CREATED = "2026-01-01T08:00:00.000Z";
/** The source's own time of the move, earlier than the updated_at the sync observes it with. */
const MOVED = "2026-02-01T10:00:00.000Z";
const UPDATED = "2026-02-02T00:00:00.000Z";

let sync = 0;
const data = (): CrmData => ({
  pipelines: [pipelineRecord({ id: "p1", stages: [stageRecord({ id: "a", kind: "open", sort: 1 }), stageRecord({ id: "b", kind: "open", sort: 2 })] })],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "L1", pipeline_id: "p1", stage_id: sync === 0 ? "a" : "b", created_at: CREATED, updated_at: sync === 0 ? "2026-01-01T08:00:00Z" : UPDATED })],
  events:
    sync === 0
      ? []
      : [
          // A stage event: a scalar before, an object after (the two forms the default detection reads).
          eventRecord({ id: "e1", lead_id: "L1", type: "Stage Changed", value_before: "a", value_after: { stage_id: "b", pipeline_id: "p1" }, created_at: MOVED, updated_at: MOVED }),
          // Not a stage event: a note's value is no stage.
          eventRecord({ id: "e2", lead_id: "L1", type: "note", value_before: null, value_after: "called back", created_at: MOVED, updated_at: MOVED }),
        ],
});

let env: SourcedConnection;
beforeAll(async () => {
  env = await startSourcedConnection("acct-history-events", crmSource(data, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" });
});
afterAll(() => env.close());

const runSync = async () => {
  const runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${env.connectionId}/syncs`, { token: env.owner })).body.id;
  expect((await env.api.waitForRun(env.connectionId, runId)).status).toBe("succeeded");
};
const history = async () => (await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/records/leads/L1/history`, { token: env.owner })).body.data as Array<Record<string, unknown>>;

describe("reported transitions from /events", () => {
  test("a stage event gives the move at the source's own time, preferred over the observed one; other event types give none", async () => {
    await runSync();
    sync = 1;
    await runSync();
    expect((await history()).map((t) => [t["from_stage_id"], t["to_stage_id"], t["at"], t["source"], t["event_id"]])).toEqual([
      [null, "a", CREATED, "observed", null],
      ["a", "b", MOVED, "reported", "e1"],
    ]);
  }, 120_000);

  test("the events re-sent by the next sync's re-read record nothing again", async () => {
    await runSync();
    expect(await history()).toHaveLength(2);
  }, 120_000);
});
