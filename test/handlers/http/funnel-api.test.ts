import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callRecord, contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, taskRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";
import { expectedFunnel } from "../../support/funnel-oracle";

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
      // lead-1 in New, lead-2 and lead-3 won: three reached New, two of them won.
      { id: "stage-new", name: "New", kind: "open", leads: 1, reached: 3, to_next: 2 / 3, to_won: 2 / 3 },
      { id: "stage-won", name: "Won", kind: "won", leads: 2, reached: 2, to_next: null, to_won: null },
      { id: "stage-lost", name: "Lost", kind: "lost", leads: 3, reached: 3, to_next: null, to_won: null },
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
    stages: [{ id: "stage-p2-open", name: "Talking", kind: "open", leads: 1, reached: 1, to_next: 0, to_won: 0 }],
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
/** What the source serves now. */
let current: CrmData = FUNNEL_DATA;

beforeAll(async () => {
  const serve = crmSource(() => current, { token: SOURCE_TOKEN });
  env = await startSourcedConnection("acct-funnel", serve, { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" }, { runEndFigures: true });
  ({ api, owner, connectionId } = env);
});
afterAll(() => env.close());

const funnelPath = () => `${CONNECTIONS_PATH}/${connectionId}/analytics/funnel`;

/** The DynamoDB commands the service's client sends while `work` runs. */
async function commandsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const name = `commands-${Math.random().toString(36).slice(2)}`;
  api.store.client.middlewareStack.add((next, context) => async (args) => {
    sent.push(context.commandName as string);
    return next(args);
  }, { step: "initialize", name });
  try {
    await work();
  } finally {
    api.store.client.middlewareStack.remove(name);
  }
  return sent;
}

describe("GET /connections/{id}/analytics/funnel", () => {
  test("before any sync: no pipelines, nothing counted", async () => {
    const response = await api.request("GET", funnelPath(), { token: owner });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ pipelines: [], leads_without_pipeline: 0, run_id: null });
  });

  test("after a sync: per pipeline, leads per stage and reached in stage order, conversions, won, lost, revenue won, top loss reasons, unresolved, overdue tasks, connected calls", async () => {
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id;
    expect((await api.waitForRun(connectionId, runId)).status).toBe("succeeded");
    const response = await api.request("GET", funnelPath(), { token: owner });
    expect(response.status).toBe(200);
    expect(response.body.pipelines).toEqual(EXPECTED_PIPELINES);
    expect(response.body.leads_without_pipeline).toBe(1);
    expect(response.body.run_id).toBe(runId);
    expect(response.body.reached_from).toBe("current_stages");
  });

  test("the funnel equals the one computed from the source's own data", async () => {
    const response = await api.request("GET", funnelPath(), { token: owner });
    const { computed_at, run_id: _run, ...funnel } = response.body;
    expect(funnel).toEqual(expectedFunnel(FUNNEL_DATA, new Date(computed_at)));
  });

  test("the figures are kept by the sync: a request reads the connection and one figures item, no record", async () => {
    // The managers' refresh the run's end asked for runs on in this process: let it finish first, so only the request is counted.
    await api.sync.managerRefresher.idle();
    const sent = await commandsDuring(() => api.request("GET", funnelPath(), { token: owner }));
    expect(sent.sort()).toEqual(["GetItemCommand", "GetItemCommand"]);
  });

  test("a run that moves a lead recomputes them at its end: reached and conversion follow", async () => {
    const moved: CrmData = { ...FUNNEL_DATA, leads: FUNNEL_DATA.leads!.map((lead) => (lead["id"] === "lead-1" ? { ...lead, stage_id: "stage-won", price: 500, updated_at: "2026-03-01T00:00:00Z" } : lead)) };
    current = moved;
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id;
    expect((await api.waitForRun(connectionId, runId)).status).toBe("succeeded");
    const response = await api.request("GET", funnelPath(), { token: owner });
    expect(response.body.run_id).toBe(runId);
    const { computed_at, run_id: _run, ...funnel } = response.body;
    expect(funnel).toEqual(expectedFunnel(moved, new Date(computed_at)));
    expect(funnel.pipelines[0].stages[0]).toMatchObject({ leads: 0, reached: 3, to_next: 1, to_won: 1 });
  });
});

describe("GET /connections/{id}/records: stored records per collection", () => {
  // Three distinct loss reasons: "too expensive", "chose a competitor" and the deleted lead's.
  test("counted at the end of the last run; soft-deleted leads are stored, so counted", async () => {
    const response = await api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/records`, { token: owner });
    expect(response.status).toBe(200);
    expect(response.body.collections).toEqual({ pipelines: 2, stages: 4, users: 1, contacts: 1, leads: 10, tasks: 6, calls: 4, events: 1, loss_reasons: 3 });
  });
});
