import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { leadRecord, pipelineRecord, stageRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";

/** Issue 22 item 3: GET .../records/{collection}/{record_id} answers { record, lineage }. */
const SOURCE_TOKEN = "src-record-lineage-5e1d";
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const data: CrmData = {
  pipelines: [pipelineRecord({ id: "pipeline-1", stages: [stageRecord({ id: "stage-won", kind: "won" })] })],
  users: [],
  contacts: [],
  leads: [
    leadRecord({ id: "lead-1", stage_id: "stage-won", updated_at: "2026-02-03T08:00:00Z" }),
    leadRecord({ id: "lead-gone", is_deleted: true, updated_at: "2026-02-03T08:01:00Z" }),
  ],
};

let api: ApiHarness;
let env: SourcedConnection;
let owner: string;
let connectionId: string;
let runId: string;
const record = (path: string, token = owner) => api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/records/${path}`, { token });

beforeAll(async () => {
  const serve = crmSource(() => data, { token: SOURCE_TOKEN });
  env = await startSourcedConnection("acct-record-lineage", serve, { token: SOURCE_TOKEN, syncSince: "2026-01-01T00:00:00Z" });
  ({ api, owner, connectionId } = env);
  runId = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id;
  expect((await api.waitForRun(connectionId, runId)).status).toBe("succeeded");
});
afterAll(() => env.close());

describe("GET /connections/{id}/records/{entity}/{recordId}", () => {
  test("a stored record comes with its lineage: the run and page that first saw it and last wrote it, and the source's updated_at", async () => {
    const response = await record("leads/lead-1");
    expect(response.status).toBe(200);
    expect(response.body.record).toMatchObject({ id: "lead-1", is_won: true });
    expect(response.body.lineage).toEqual({
      first_seen: { run_id: runId, page: 1, at: expect.stringMatching(ISO_UTC) },
      last_written: { run_id: runId, page: 1, at: response.body.lineage.first_seen.at, source_updated_at: "2026-02-03T08:00:00.000Z" },
      writes: 1,
      deleted_at: null,
      healed_by_audit: null,
      findings: [],
    });
  });

  test("a soft-deleted lead has its deleted_at", async () => {
    const response = await record("leads/lead-gone");
    expect(response.body.record).toMatchObject({ is_deleted: true });
    expect(response.body.lineage.deleted_at).toBe(response.body.lineage.last_written.at);
  });

  test("a record not stored is 200 with record and lineage null, never a bare 404", async () => {
    const response = await record("leads/lead-never");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ record: null, lineage: null });
  });

  test("a stage is named by its pipeline too: ?pipeline_id= is required (422 without it)", async () => {
    const stage = await record("stages/stage-won?pipeline_id=pipeline-1");
    expect(stage.status).toBe(200);
    expect(stage.body.record).toMatchObject({ id: "stage-won", pipeline_id: "pipeline-1", kind: "won" });
    expect(stage.body.lineage.writes).toBe(1);
    const missing = await record("stages/stage-won");
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ field: "pipeline_id" });
  });

  test("ids over the key limit and unknown collections get 404, as on the other routes", async () => {
    expect((await record(`leads/${"x".repeat(1025)}`)).status).toBe(404);
    expect((await record(`stages/s1?pipeline_id=${"p".repeat(1025)}`)).status).toBe(404);
    expect((await record("opportunities/lead-1")).status).toBe(404);
  });

  test("owner-only and tenant-scoped: another workspace gets 404, a ROP 403", async () => {
    expect((await record("leads/lead-1", await api.token("acct-someone-else"))).status).toBe(404);
    expect((await record("leads/lead-1", await api.token("acct-record-lineage", "ROP"))).status).toBe(403);
  });
});
