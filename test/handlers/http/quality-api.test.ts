import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { callRecord, contactRecord, leadRecord, pipelineRecord, taskRecord, userRecord } from "../../builders/source-records";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";
import { crmSource, type CrmData } from "../../support/crm-source";

const SOURCE_TOKEN = "src-quality-api-5b1c";

/** A source whose silent-rule hits are known: three unlinked tasks, an unreadable updated_at, a call with no direction. */
let data: CrmData = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "lead-1" }), leadRecord({ id: "lead-2", stage_id: "stage-gone", updated_at: "2026-02-03T09:00:00Z" })],
  tasks: [
    taskRecord({ id: "task-1", lead_id: null, contact_id: null, updated_at: "2026-02-04T08:00:00Z" }),
    taskRecord({ id: "task-2", lead_id: null, contact_id: null, updated_at: "2026-02-04T08:00:01Z" }),
    taskRecord({ id: "task-3", updated_at: "Feb 4th" }),
  ],
  calls: [callRecord({ id: "call-1", direction: "sideways" })],
  events: [],
};

let api: ApiHarness;
let env: SourcedConnection;
let owner: string;
let connectionId: string;
const quality = () => api.request("GET", `${CONNECTIONS_PATH}/${connectionId}/quality`, { token: owner });
const sync = async () => {
  const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id as string;
  const run = await api.waitForRun(connectionId, runId);
  expect(run.status).toBe("succeeded");
  return runId;
};
const rulesOf = (body: { entities: { entity: string; rules: unknown[] }[] }, entity: string) => body.entities.find((row) => row.entity === entity)!.rules;

beforeAll(async () => {
  // From 1970: the source compares an unreadable updated_at as 1970 (as the service would), so only the first run reads it.
  const serve = crmSource(() => data, { token: SOURCE_TOKEN });
  env = await startSourcedConnection("acct-quality", serve, { token: SOURCE_TOKEN, syncSince: "1970-01-01T00:00:00Z" });
  ({ api, owner, connectionId } = env);
});
afterAll(() => env.close());

describe("GET /connections/{id}/quality", () => {
  test("before any run: every entity, no rule, no run", async () => {
    const response = await quality();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ connection_id: connectionId, runs: [], last_successful_run_id: null });
    expect(response.body.entities.map((row: { rules: unknown[] }) => row.rules)).toEqual(response.body.entities.map(() => []));
  });

  test("per entity and rule: the last successful run's count, the counts of the last runs, sample ids and the catalog's fix", async () => {
    const first = await sync();
    // The drift: one more unlinked task, and the call's direction fixed. The task with an unreadable updated_at is never read again.
    data = {
      ...data,
      tasks: [...data.tasks!, taskRecord({ id: "task-4", lead_id: null, contact_id: null, updated_at: "2026-03-01T00:00:00Z" })],
      calls: [callRecord({ id: "call-1", direction: "in", updated_at: "2026-03-01T00:00:00Z" })],
    };
    const second = await sync();

    const response = await quality();
    expect(response.status).toBe(200);
    expect(response.body.runs.map((run: { id: string }) => run.id)).toEqual([second, first]);
    expect(response.body.last_successful_run_id).toBe(second);
    const fix = (rule: string) => RULES_BY_ID.get(rule)!.fix;
    // The second run re-reads from its watermark minus the margin: tasks at or after it, and task-4.
    expect(rulesOf(response.body, "tasks")).toEqual([
      expect.objectContaining({ rule: "record.updated-at", severity: "error", last_successful_run: 0, counts: [{ run_id: second, count: 0 }, { run_id: first, count: 1 }], sample_ids: ["task-3"], fix: fix("record.updated-at") }),
      expect.objectContaining({ rule: "task.unlinked", severity: "warning", fix: fix("task.unlinked"), spec: "Resources > Task (Association)" }),
    ]);
    const unlinked = rulesOf(response.body, "tasks")[1] as { counts: { count: number }[]; last_successful_run: number; sample_ids: string[] };
    expect(unlinked.counts[1]!.count).toBe(2);
    expect(unlinked.last_successful_run).toBe(unlinked.counts[0]!.count);
    expect(unlinked.sample_ids).toContain("task-4");
    expect(rulesOf(response.body, "calls")).toEqual([
      expect.objectContaining({ rule: "call.direction-defaulted", last_successful_run: 0, counts: [{ run_id: second, count: 0 }, { run_id: first, count: 1 }], sample_ids: ["call-1"] }),
    ]);
    expect(rulesOf(response.body, "leads")).toEqual([expect.objectContaining({ rule: "reference.stage", sample_ids: ["lead-2"], counts: [{ run_id: second, count: expect.any(Number) }, { run_id: first, count: 1 }] })]);
    expect(rulesOf(response.body, "users")).toEqual([]);
    expect(JSON.stringify(response.body)).not.toContain(SOURCE_TOKEN);
  });

  test("the counts cover the last 10 runs only: with 11, the oldest drops out, and so does a rule only it hit", async () => {
    // Issue 22 says "the counts over the last 10 runs": the number is the contract, not a constant to follow.
    const LAST = 10;
    const earlier = ((await quality()).body.runs as { id: string }[]).map((run) => run.id);
    const oldest = earlier.at(-1)!;
    const later: string[] = [];
    while (later.length + earlier.length <= LAST) later.unshift(await sync());
    const newest = [...later, ...earlier].slice(0, LAST);
    const body = (await quality()).body;
    expect(body.runs.map((run: { id: string }) => run.id)).toEqual(newest);
    expect(newest).not.toContain(oldest);
    // Only the oldest run read task-3's unreadable updated_at and the call with no direction: their rules leave the view with it.
    expect(rulesOf(body, "tasks").map((rule) => (rule as { rule: string }).rule)).toEqual(["task.unlinked"]);
    expect(rulesOf(body, "calls")).toEqual([]);
    expect((rulesOf(body, "tasks")[0] as { counts: { run_id: string }[] }).counts.map((each) => each.run_id)).toEqual(newest);
  });
});
