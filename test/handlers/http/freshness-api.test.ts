import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import { leadRecord, pipelineRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";

/** Issue 22 item 6: each connection carries freshness per entity, freshness_hours and stale. */
const SOURCE_TOKEN = "src-freshness-77b2";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const HOUR = 3_600_000;

/** The domain's clock, set by the test (timestamps as data; nothing waits on it). */
let time = T0;
const clock: Clock = { now: () => new Date(time) };

const data: CrmData = {
  pipelines: [pipelineRecord({ id: "pipeline-1" })],
  users: [],
  contacts: [],
  leads: [leadRecord({ id: "lead-1", updated_at: "2026-02-03T08:00:00Z" })],
};

let env: SourcedConnection;
let api: ApiHarness;
let owner: string;
let connectionId: string;
const connection = () => api.request("GET", `${CONNECTIONS_PATH}/${connectionId}`, { token: owner });

beforeAll(async () => {
  const serve = crmSource(() => data, { token: SOURCE_TOKEN });
  env = await startSourcedConnection("acct-freshness", serve, { token: SOURCE_TOKEN, syncSince: "2026-01-01T00:00:00Z" }, { clock, schedule: "1h" });
  ({ api, owner, connectionId } = env);
});
afterAll(() => env.close());

describe("a connection's freshness", () => {
  test("a new connection: no entity synced yet, freshness_hours twice the 1h schedule, not stale", async () => {
    const body = (await connection()).body;
    expect(body.freshness_hours).toBe(2);
    expect(body.stale).toBe(false);
    expect(body.freshness.leads).toEqual({ data_as_of: null, watermark: null });
  });

  test("after a run, each entity's data_as_of is when its last page committed, with its watermark", async () => {
    time = T0 + HOUR;
    const run = await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner });
    expect((await api.waitForRun(connectionId, run.body.id)).status).toBe("succeeded");
    const body = (await connection()).body;
    const at = new Date(T0 + HOUR).toISOString();
    expect(body.freshness).toEqual({
      pipelines: { data_as_of: at, watermark: null },
      users: { data_as_of: at, watermark: null },
      contacts: { data_as_of: at, watermark: null },
      leads: { data_as_of: at, watermark: "2026-02-03T08:00:00.000Z" },
      // Optional endpoints the source does not implement (404): 0 records, no page committed.
      tasks: { data_as_of: null, watermark: null },
      calls: { data_as_of: null, watermark: null },
      events: { data_as_of: null, watermark: null },
    });
    expect(body.stale).toBe(false);
  });

  test("stale once a required entity's data is older than freshness_hours; freshness_hours is the owner's to set, null goes back to the default", async () => {
    time = T0 + 3 * HOUR + 1;
    expect((await connection()).body.stale).toBe(true);
    const patched = await api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: owner, body: { freshness_hours: 24 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ freshness_hours: 24, stale: false });
    const back = await api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: owner, body: { freshness_hours: null } });
    expect(back.body).toMatchObject({ freshness_hours: 2, stale: true });
    expect((await api.request("PATCH", `${CONNECTIONS_PATH}/${connectionId}`, { token: owner, body: { freshness_hours: 0 } })).status).toBe(422);
    expect((await api.request("GET", CONNECTIONS_PATH, { token: owner })).body.data[0]).toMatchObject({ id: connectionId, stale: true });
  });
});
