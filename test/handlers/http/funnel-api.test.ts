import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callRecord, contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, taskRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";

const SOURCE_TOKEN = "src-funnel-api-0e3d";
const PAST = "2000-01-01T00:00:00Z";
const FUTURE = "2999-01-01T00:00:00Z";

/** A funnel whose every number is known: see the expected body below. */
export const FUNNEL_DATA: CrmData = {
  pipelines: [
    // Stages listed out of order: the funnel orders them by sort.
    pipelineRecord({
      stages: [
        stageRecord({ id: "stage-lost", name: "Lost", kind: "lost", sort: 3 }),
        stageRecord(),
        stageRecord({ id: "stage-won", name: "Won", kind: "won", sort: 2 }),
      ],
    }),
    pipelineRecord({ id: "pipeline-2", name: "Partners", sort: 2, stages: [stageRecord({ id: "stage-p2-open", name: "Talking" })] }),
  ],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [
    leadRecord({ id: "lead-1" }),
    leadRecord({ id: "lead-2", stage_id: "stage-won", price: 1000 }),
    leadRecord({ id: "lead-3", stage_id: "stage-won", price: "2500.9" }),
    leadRecord({ id: "lead-4", stage_id: "stage-lost", loss_reason: "too expensive" }),
    leadRecord({ id: "lead-5", stage_id: "stage-lost", loss_reason: "too expensive" }),
    leadRecord({ id: "lead-6", stage_id: "stage-lost", loss_reason: "chose a competitor" }),
    leadRecord({ id: "lead-7", stage_id: "stage-lost", loss_reason: "deleted reason", is_deleted: true }),
    leadRecord({ id: "lead-8", stage_id: "stage-gone" }),
    leadRecord({ id: "lead-9", pipeline_id: "pipeline-2", stage_id: "stage-p2-open" }),
    leadRecord({ id: "lead-10", pipeline_id: "pipeline-none", stage_id: "stage-new" }),
  ],
  tasks: [
    taskRecord({ id: "task-1", lead_id: "lead-1", due_at: PAST }),
    taskRecord({ id: "task-2", lead_id: "lead-1", due_at: FUTURE }),
    taskRecord({ id: "task-3", lead_id: "lead-2", due_at: PAST, is_completed: true, completed_at: PAST }),
    taskRecord({ id: "task-4", lead_id: "lead-9", due_at: PAST }),
    taskRecord({ id: "task-5", lead_id: null, contact_id: "contact-1", due_at: PAST }),
    taskRecord({ id: "task-6", lead_id: "lead-7", due_at: PAST }),
  ],
  calls: [
    callRecord({ id: "call-1", lead_id: "lead-1", duration_seconds: 95 }),
    callRecord({ id: "call-2", lead_id: "lead-2", duration_seconds: 0 }),
    callRecord({ id: "call-3", lead_id: "lead-9", duration_seconds: 10 }),
    callRecord({ id: "call-4", lead_id: null, contact_id: "contact-1", duration_seconds: 30 }),
  ],
  events: [eventRecord()],
};

export const EXPECTED_PIPELINES = [
  {
    id: "pipeline-1",
    name: "Sales",
    stages: [
      { id: "stage-new", name: "New", kind: "open", leads: 1 },
      { id: "stage-won", name: "Won", kind: "won", leads: 2 },
      { id: "stage-lost", name: "Lost", kind: "lost", leads: 3 },
    ],
    won: 2,
    lost: 3,
    revenue_won: 3500,
    top_loss_reasons: [
      { reason: "too expensive", leads: 2 },
      { reason: "chose a competitor", leads: 1 },
    ],
    unresolved_won_lost: 1,
    overdue_tasks: 1,
    connected_calls: 1,
  },
  {
    id: "pipeline-2",
    name: "Partners",
    stages: [{ id: "stage-p2-open", name: "Talking", kind: "open", leads: 1 }],
    won: 0,
    lost: 0,
    revenue_won: 0,
    top_loss_reasons: [],
    unresolved_won_lost: 0,
    overdue_tasks: 1,
    connected_calls: 1,
  },
];

let api: ApiHarness;
let env: SourcedConnection;
let owner: string;
let connectionId: string;

beforeAll(async () => {
  const serve = crmSource(() => FUNNEL_DATA, { token: SOURCE_TOKEN });
  env = await startSourcedConnection("acct-funnel", serve, { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" });
  ({ api, owner, connectionId } = env);
});
afterAll(() => env.close());

describe("GET /connections/{id}/analytics/funnel", () => {
  test("before any sync: no pipelines, nothing counted", async () => {
    const response = await api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/analytics/funnel`, { token: owner });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ pipelines: [], leads_without_pipeline: 0 });
  });

  test("after a sync: per pipeline, leads per stage in stage order, won, lost, revenue won, top loss reasons, unresolved, overdue tasks, connected calls", async () => {
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id;
    expect((await api.waitForRun(connectionId, runId)).status).toBe("succeeded");
    const response = await api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/analytics/funnel`, { token: owner });
    expect(response.status).toBe(200);
    expect(response.body.pipelines).toEqual(EXPECTED_PIPELINES);
    expect(response.body.leads_without_pipeline).toBe(1);
    expect(Number.isNaN(Date.parse(response.body.computed_at))).toBe(false);
  });
});
