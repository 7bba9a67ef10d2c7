import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ANNA, BORIS, CARLA, MANAGERS_NOW, MANAGERS_PERIOD, managersCrm } from "../../builders/managers-crm";
import { leadRecord, type RawRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { comparableRow, expectedFigures, type Period } from "../../support/manager-figures-oracle";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";
import type { SourceReply, SourceRequest } from "../../support/source-server";

/*
 * Issue 35's figures and links against a source that keeps changing: between
 * runs (deletions, emails, activity, far dates, huge prices) and during one,
 * and a run that fails half way. After each run, every row equals what the
 * oracle counts from the records the service stored (test/support/manager-figures-oracle.ts).
 */

const SOURCE_TOKEN = "src-managers-change-3e9a";
const ACCOUNT = "acct-managers-change";
const ANALYTICS = "/api/v1/analytics/connections";

let DATA: CrmData = managersCrm();
/** Answers a request before the data does (a failing endpoint, or a change made while the run reads). */
let fault: (request: SourceRequest) => SourceReply | undefined = () => undefined;

let env: SourcedConnection;
let api: ApiHarness;
let owner: string;
let id: string;

const figures = async (token: string, query = "") => api.request("GET", `${ANALYTICS}/${id}/managers${query}`, { token });
const mop = (member: string, email: string) => api.token(ACCOUNT, "MOP", { user: member, email });
/** Every row the owner reads equals the oracle's count of `stored` (the source's data as the service holds it). */
async function expectRowsOf(stored: CrmData, period: Period = MANAGERS_PERIOD): Promise<void> {
  const query = period === MANAGERS_PERIOD ? "" : `?from=${period.from}&to=${period.to}`;
  const rows = (await figures(owner, query)).body.rows.map(comparableRow);
  for (const { user, ...counted } of rows) {
    expect(counted, `row of ${user?.id ?? "no user"} in ${period.from}..${period.to}`).toEqual(expectedFigures(stored, user?.id ?? null, period, MANAGERS_NOW));
  }
}
async function sync(expected: "succeeded" | "failed" = "succeeded"): Promise<void> {
  const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
  expect((await api.waitForRun(id, runId)).status).toBe(expected);
  await api.sync.managerRefresher.idle();
}
const changeLead = (leadId: string, fields: RawRecord): RawRecord[] => DATA.leads!.map((lead) => (lead["id"] === leadId ? { ...lead, ...fields } : lead));
const changeUser = (userId: string, fields: RawRecord): RawRecord[] => DATA.users!.map((user) => (user["id"] === userId ? { ...user, ...fields } : user));
const leadIdsOf = async (userId: string): Promise<string[]> =>
  (await api.request("GET", `${ANALYTICS}/${id}/leads?user_id=${userId}`, { token: await api.token(ACCOUNT, "ROP") })).body.data.map((lead: { id: string }) => lead.id).sort();

beforeAll(async () => {
  env = await startSourcedConnection(ACCOUNT, crmSource(() => DATA, { token: SOURCE_TOKEN, fault: (request) => fault(request) }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" }, {
    clock: { now: () => new Date(MANAGERS_NOW) },
    runEndFigures: true,
  });
  ({ api, owner } = env);
  id = env.connectionId;
  await sync();
}, 60_000);
afterAll(() => env.close());

describe("the source changes between runs", () => {
  test("a lead soft-deleted at the source between runs leaves every figure and every list", async () => {
    expect(await leadIdsOf(BORIS.id)).toContain("lead-b2");
    DATA = { ...DATA, leads: changeLead("lead-b2", { is_deleted: true, updated_at: "2026-03-31T09:00:00Z" }) };
    await sync();
    await expectRowsOf(DATA);
    expect((await figures(owner)).body.rows[1].leads).toMatchObject({ won: 0, revenue_won: 0, average_won_deal: null });
    expect(await leadIdsOf(BORIS.id)).toEqual(["lead-b1", "lead-b3"]);
    const rop = await api.token(ACCOUNT, "ROP");
    expect((await api.request("GET", `${ANALYTICS}/${id}/leads/lead-b2`, { token: rop })).status).toBe(404);
  });

  test("a user whose email changes at the source is linked by the new email; the old email's member is linked no more", async () => {
    const before = await mop("member-carla", "carla@example.com");
    expect((await figures(before)).body.rows.map((row: { user: { id: string } }) => row.user.id)).toEqual([CARLA.id]);
    DATA = { ...DATA, users: changeUser(CARLA.id, { email: "Carla.Diaz@Example.NET" }) };
    await sync();
    expect((await figures(before)).status).toBe(403);
    const after = await mop("member-carla-new", "  carla.diaz@example.net ");
    const rows = (await figures(after)).body.rows;
    expect(rows.map((row: { user: { id: string } }) => row.user.id)).toEqual([CARLA.id]);
    const entry = (await api.request("GET", `${CONNECTIONS_PATH}/${id}/managers`, { token: owner })).body.data.find((e: { source_user: { id: string } }) => e.source_user.id === CARLA.id);
    expect(entry).toMatchObject({ member_id: "member-carla-new", linked_by: "email" });
  });

  test("a user's activity is marked as the source says now: inactive, back to active, and an explicit null is inactive", async () => {
    const activity = async () => Object.fromEntries((await figures(owner)).body.rows.filter((row: { user: unknown }) => row.user !== null).map((row: { user: { id: string; is_active: boolean } }) => [row.user.id, row.user.is_active]));
    expect(await activity()).toEqual({ [ANNA.id]: true, [BORIS.id]: true, [CARLA.id]: false });
    const { is_active: _omitted, ...annaWithoutKey } = DATA.users!.find((user) => user["id"] === ANNA.id)!;
    DATA = { ...DATA, users: [annaWithoutKey, ...changeUser(BORIS.id, { is_active: null }).filter((user) => user["id"] !== ANNA.id)].map((user) => (user["id"] === CARLA.id ? { ...user, is_active: true } : user)) };
    await sync();
    expect(await activity()).toEqual({ [ANNA.id]: true, [BORIS.id]: false, [CARLA.id]: true });
  });

  test("dates far in the past and future (a CRM's wrong clock) fall on their own UTC days: a lead created in 1970 and won in 9999 counts in those days' periods only", async () => {
    DATA = {
      ...DATA,
      leads: [
        ...DATA.leads!,
        leadRecord({ id: "lead-far", contact_ids: ["contact-1"], responsible_user_id: BORIS.id, stage_id: "stage-won", price: 40, created_at: "1970-01-01T00:00:00Z", closed_at: "9999-12-31T23:59:59Z", updated_at: "2026-03-31T09:30:00Z" }),
      ],
    };
    await sync();
    await expectRowsOf(DATA);
    await expectRowsOf(DATA, { from: "9999-12-31", to: "9999-12-31" });
    await expectRowsOf(DATA, { from: "1970-01-01", to: "1970-01-01" });
    const far = (await figures(owner, "?from=9999-12-31&to=9999-12-31")).body.rows[1].leads;
    expect(far).toMatchObject({ won: 1, revenue_won: 40, median_days_to_won: Math.floor((Date.UTC(9999, 11, 31, 23, 59, 59) - Date.UTC(1970, 0, 1)) / 86_400_000) });
    expect((await figures(owner, "?from=1970-01-01&to=1970-01-01")).body.rows[1].leads).toMatchObject({ created: 1, won: 0 });
  });

  test("revenue is exact beyond 2^53: prices sent as digits add up to the digit, and the average rounds half away from zero", async () => {
    // 2^53 + 1 twice and 2: a double would drop the ones.
    DATA = {
      ...DATA,
      users: [...DATA.users!, { id: "u-dana", name: "Dana", email: "dana@example.com", role: "MOP", is_active: true }],
      leads: [
        ...DATA.leads!,
        ...["9007199254740993", "9007199254740993", "2"].map((price, i) =>
          leadRecord({ id: `lead-d${i}`, contact_ids: ["contact-1"], responsible_user_id: "u-dana", stage_id: "stage-won", price, created_at: "2026-03-10T00:00:00Z", closed_at: "2026-03-11T00:00:00Z", updated_at: `2026-03-31T09:4${i}:00Z` }),
        ),
      ],
    };
    await sync();
    await expectRowsOf(DATA);
    const dana = (await figures(owner)).body.rows.find((row: { user: { id: string } | null }) => row.user?.id === "u-dana");
    expect(dana.leads).toMatchObject({ won: 3, revenue_won: "18014398509481988", average_won_deal: 6004799503160663 });
  });
});

describe("the source changes while a run reads it, and a run that fails", () => {
  test("a lead reassigned while the run reads the tasks: the figures are what was stored, and the next run brings the change", async () => {
    const asStored = DATA;
    fault = (request) => {
      if (request.path === "/tasks" && DATA === asStored) DATA = { ...DATA, leads: changeLead("lead-a1", { responsible_user_id: BORIS.id, updated_at: "2026-03-31T10:00:00Z" }) };
      return undefined;
    };
    try {
      await sync();
    } finally {
      fault = () => undefined;
    }
    expect(DATA).not.toBe(asStored);
    // The leads were read before the change: stored as they were, counted as they were (tasks, calls and events did not change).
    await expectRowsOf(asStored);
    expect(await leadIdsOf(ANNA.id)).toContain("lead-a1");
    await sync();
    await expectRowsOf(DATA);
    expect(await leadIdsOf(BORIS.id)).toContain("lead-a1");
    expect(await leadIdsOf(ANNA.id)).not.toContain("lead-a1");
  });

  test("a run that fails still brings the figures to what it committed: users renamed before the leads failed show, the leads' change does not", async () => {
    const leadsBefore = DATA.leads!;
    DATA = { ...DATA, users: changeUser(ANNA.id, { name: "Anna Smith-Lee" }), leads: changeLead("lead-b1", { stage_id: "stage-lost", closed_at: "2026-03-31T10:30:00Z", updated_at: "2026-03-31T10:30:00Z" }) };
    fault = (request) => (request.path === "/leads" ? { status: 400, json: { error: "bad request" } } : undefined);
    try {
      await sync("failed");
    } finally {
      fault = () => undefined;
    }
    const rows = (await figures(owner)).body.rows;
    expect(rows[0].user.name).toBe("Anna Smith-Lee");
    await expectRowsOf({ ...DATA, leads: leadsBefore });
    await sync();
    await expectRowsOf(DATA);
    expect((await figures(owner)).body.rows[1].leads.lost).toBe(expectedFigures(DATA, BORIS.id, MANAGERS_PERIOD, MANAGERS_NOW).leads.lost);
  });
});
