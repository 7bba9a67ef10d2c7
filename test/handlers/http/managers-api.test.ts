import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ANNA, BORIS, CARLA, MANAGERS_NOW, MANAGERS_PERIOD, managersCrm } from "../../builders/managers-crm";
import { crmSource } from "../../support/crm-source";
import { comparableRow, expectedFigures, type Period } from "../../support/manager-figures-oracle";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiHarness, type SourcedConnection } from "../../support/api-harness";

const SOURCE_TOKEN = "src-managers-api-5b1c";
const ANALYTICS = "/api/v1/analytics/connections";
/** The source's data: the fixture, changed between runs by the last describe. */
let DATA = managersCrm();
const NAMES: Record<string, string> = { [ANNA.id]: "Anna Smith", [BORIS.id]: "Boris Klein", [CARLA.id]: "Carla Diaz" };

let env: SourcedConnection;
let api: ApiHarness;
let owner: string;
let id: string;
const now = { at: MANAGERS_NOW };

const figures = async (token: string, query = "") => api.request("GET", `${ANALYTICS}/${id}/managers${query}`, { token });
const mop = (member: string, email?: string) => api.token("acct-managers", "MOP", { user: member, ...(email === undefined ? {} : { email }) });
/** The row as the oracle counts it, without the signals' words (compared by rule, count and samples). */
const oracleRow = (userId: string | null, period: Period = MANAGERS_PERIOD) => expectedFigures(DATA, userId, period, now.at);

beforeAll(async () => {
  env = await startSourcedConnection("acct-managers", crmSource(() => DATA, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" }, { clock: { now: () => new Date(now.at) }, runEndFigures: true });
  ({ api, owner } = env);
  id = env.connectionId;
  const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
  expect((await api.waitForRun(id, runId)).status).toBe("succeeded");
  // The run's end asked for the figures; the local runtime computes them in process.
  await api.sync.managerRefresher.idle();
}, 60_000);
afterAll(() => env.close());

describe("per-manager figures: each row equals what the stored records say", () => {
  test("the owner sees one row per source user who owns anything and one for no or an unknown user, each figure as counted from the fixture", async () => {
    const response = await figures(owner);
    expect(response.status).toBe(200);
    expect(response.body.period).toEqual({ ...MANAGERS_PERIOD, time_zone: "UTC" });
    expect(response.body.computed_at).toBe(MANAGERS_NOW);
    const rows = response.body.rows.map(comparableRow);
    expect(rows.map((row: { user: { id: string } | null }) => row.user?.id ?? null)).toEqual([ANNA.id, BORIS.id, CARLA.id, null]);
    for (const row of rows) {
      const { user, ...counted } = row;
      expect(counted, `row of ${user?.id ?? "no user"}`).toEqual(oracleRow(user?.id ?? null));
    }
  });

  test("an inactive user is marked; users carry their name and email from /users", async () => {
    const rows = (await figures(owner)).body.rows;
    expect(rows.map((row: { user: { is_active: boolean; name: string } | null }) => row.user && [row.user.name, row.user.is_active])).toEqual([
      [NAMES[ANNA.id], true],
      [NAMES[BORIS.id], true],
      [NAMES[CARLA.id], false],
      null,
    ]);
  });

  test("periods are whole UTC days, both ends included: a lead won at 23:59:59 on `to` counts, one won at 00:00:00 the next day does not", async () => {
    const march = (await figures(owner, "?from=2026-03-31&to=2026-03-31")).body.rows[0];
    expect(march.leads.won).toBe(1); // lead-a2, closed 2026-03-31T23:59:59Z
    expect(march.leads.revenue_won).toBe(1000);
    const april = (await figures(owner, "?from=2026-04-01&to=2026-04-01")).body.rows[0];
    expect(april.leads.won).toBe(1); // lead-a5, closed 2026-04-01T00:00:00Z
    expect(april.leads.revenue_won).toBe(700);
    const firstDay = (await figures(owner, "?from=2026-03-02&to=2026-03-02")).body.rows[0];
    expect(firstDay.leads.won).toBe(1); // lead-a3, closed at 00:00:00 on `from`
    const dayBefore = (await figures(owner, "?from=2026-03-01&to=2026-03-01")).body.rows[1];
    expect(dayBefore.leads.lost).toBe(1); // lead-b3, closed at 23:59:59 the day before the default period
    for (const period of [{ from: "2026-03-31", to: "2026-03-31" }, { from: "2026-04-01", to: "2026-04-01" }, { from: "2026-03-01", to: "2026-03-01" }]) {
      const rows = (await figures(owner, `?from=${period.from}&to=${period.to}`)).body.rows.map(comparableRow);
      for (const { user, ...counted } of rows) expect(counted).toEqual(oracleRow(user?.id ?? null, period));
    }
  });

  test("a period that is not one is a 422 naming the field and the rule", async () => {
    for (const [query, field] of [["?from=2026-02-30", "from"], ["?to=31.03.2026", "to"], ["?from=2026-04-01&to=2026-03-31", "from"], ["?from=2025-03-30&to=2026-03-31", "from"]] as const) {
      const response = await figures(owner, query);
      expect(response.status, query).toBe(422);
      expect(response.body.error.field).toBe(field);
    }
    expect((await figures(owner, "?from=2025-03-31&to=2026-03-31")).status).toBe(200); // 366 days, both included
  });

  test("a task due exactly now is not overdue yet; a second later it is", async () => {
    expect((await figures(owner)).body.rows[1].tasks.overdue).toBe(0);
    now.at = "2026-03-31T12:00:00.001Z";
    try {
      expect((await figures(owner)).body.rows[1].tasks.overdue).toBe(1);
      expect((await figures(owner)).body.rows[1].tasks.overdue).toBe(oracleRow(BORIS.id).tasks.overdue);
    } finally {
      now.at = MANAGERS_NOW;
    }
  });
});

describe("links: automatic by email, explicit by the owner, unlink sticks", () => {
  test("the owner's list: Anna linked by email once her session was seen, Carla's email matches no member", async () => {
    await figures(await mop(ANNA.member, ANNA.sessionEmail)); // her first request records her email
    const list = await api.request("GET", `${CONNECTIONS_PATH}/${id}/managers`, { token: owner });
    expect(list.status).toBe(200);
    const byId = Object.fromEntries(list.body.data.map((entry: { source_user: { id: string } }) => [entry.source_user.id, entry]));
    expect(byId[ANNA.id]).toMatchObject({ member_id: ANNA.member, linked_by: "email", unlinked: false });
    expect(byId[CARLA.id]).toMatchObject({ member_id: null, linked_by: null, unlinked: false, source_user: { is_active: false } });
    expect(byId[ANNA.id].summary).toEqual({ leads_open: 2, won: 2, revenue_won: 3500, tasks_overdue: 1 });
  });

  test("MOP: own row only, own records only, another manager's record by id is a 404", async () => {
    const anna = await mop(ANNA.member, ANNA.sessionEmail);
    const rows = (await figures(anna)).body.rows;
    expect(rows).toHaveLength(1);
    expect(comparableRow(rows[0])).toEqual({ user: expect.objectContaining({ id: ANNA.id }), ...oracleRow(ANNA.id) });
    const leads = await api.request("GET", `${ANALYTICS}/${id}/leads?limit=2`, { token: anna });
    expect(leads.status).toBe(200);
    const all = [...leads.body.data];
    let cursor = leads.body.next_cursor;
    while (cursor !== null) {
      const next = await api.request("GET", `${ANALYTICS}/${id}/leads?limit=2&cursor=${cursor}`, { token: anna });
      all.push(...next.body.data);
      cursor = next.body.next_cursor;
    }
    // Deleted leads count nowhere, in lists neither.
    expect(all.map((lead) => lead.id).sort()).toEqual(["lead-a1", "lead-a2", "lead-a3", "lead-a4", "lead-a5", "lead-a6"]);
    expect((await api.request("GET", `${ANALYTICS}/${id}/leads/lead-a1`, { token: anna })).status).toBe(200);
    for (const [collection, other] of [["leads", "lead-b1"], ["leads", "lead-n1"], ["tasks", "task-b1"], ["calls", "call-boris-0"], ["leads", "lead-a7"]]) {
      const response = await api.request("GET", `${ANALYTICS}/${id}/${collection}/${other}`, { token: anna });
      expect(response.status, `${collection}/${other}`).toBe(404);
    }
    expect((await api.request("GET", `${ANALYTICS}/${id}/tasks?user_id=${BORIS.id}`, { token: anna })).status).toBe(404);
    const tasks = await api.request("GET", `${ANALYTICS}/${id}/tasks`, { token: anna });
    expect(tasks.body.data.map((task: { id: string }) => task.id).sort()).toEqual(["task-a1", "task-a2", "task-a3"]);
  });

  test("a MOP linked to nobody gets 403 with a sentence saying to ask the owner to link them", async () => {
    const nobody = await mop("member-zed", "zed@example.com");
    const response = await figures(nobody);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("not_linked");
    expect(response.body.error.message).toMatch(/ask the workspace owner to link you/i);
    expect((await api.request("GET", `${ANALYTICS}/${id}/leads`, { token: nobody })).status).toBe(403);
  });

  test("the owner links Boris's member explicitly; unlinks Anna and it sticks though her email still matches; back to automatic", async () => {
    const linked = await api.request("PUT", `${CONNECTIONS_PATH}/${id}/managers/${BORIS.id}`, { token: owner, body: { user_id: BORIS.member } });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ member_id: BORIS.member, linked_by: "owner" });
    const boris = await mop(BORIS.member, BORIS.sessionEmail);
    expect((await figures(boris)).body.rows.map((row: { user: { id: string } }) => row.user.id)).toEqual([BORIS.id]);

    const unlinked = await api.request("DELETE", `${CONNECTIONS_PATH}/${id}/managers/${ANNA.id}`, { token: owner });
    expect(unlinked.body).toMatchObject({ member_id: null, linked_by: null, unlinked: true });
    const anna = await mop(ANNA.member, ANNA.sessionEmail);
    expect((await figures(anna)).status).toBe(403);
    expect((await figures(anna)).status).toBe(403);

    const automatic = await api.request("PUT", `${CONNECTIONS_PATH}/${id}/managers/${ANNA.id}`, { token: owner, body: { user_id: null } });
    expect(automatic.body).toMatchObject({ member_id: ANNA.member, linked_by: "email", unlinked: false });
    expect((await figures(anna)).status).toBe(200);
  });

  test("one source user links to one member: linking a member elsewhere on the connection moves them; a member may be linked on several connections", async () => {
    await api.request("PUT", `${CONNECTIONS_PATH}/${id}/managers/${CARLA.id}`, { token: owner, body: { user_id: BORIS.member } });
    const list = (await api.request("GET", `${CONNECTIONS_PATH}/${id}/managers`, { token: owner })).body.data;
    const members = list.filter((entry: { member_id: string | null }) => entry.member_id === BORIS.member).map((entry: { source_user: { id: string } }) => entry.source_user.id);
    expect(members).toEqual([CARLA.id]);
    const boris = await mop(BORIS.member, BORIS.sessionEmail);
    expect((await figures(boris)).body.rows.map((row: { user: { id: string } }) => row.user.id)).toEqual([CARLA.id]);
    await api.request("PUT", `${CONNECTIONS_PATH}/${id}/managers/${BORIS.id}`, { token: owner, body: { user_id: BORIS.member } });
    const connections = (await api.request("GET", ANALYTICS, { token: boris })).body.data;
    expect(connections).toEqual([expect.objectContaining({ id, linked_to: { source_user_id: BORIS.id, linked_by: "owner" } })]);
  });

  test("a link's body is checked: user_id required, one line of at most 255 characters; an unknown source user is a 404", async () => {
    const put = (sourceUser: string, body: unknown) => api.request("PUT", `${CONNECTIONS_PATH}/${id}/managers/${encodeURIComponent(sourceUser)}`, { token: owner, body });
    expect((await put(ANNA.id, {})).body.error).toMatchObject({ field: "user_id", rule: "is required" });
    expect((await put(ANNA.id, { user_id: "x".repeat(256) })).status).toBe(422);
    expect((await put(ANNA.id, { user_id: "a\nb" })).status).toBe(422);
    expect((await put(ANNA.id, { user_id: "x".repeat(255) })).status).toBe(200);
    expect((await put("u-nobody", { user_id: "m" })).status).toBe(404);
    await put(ANNA.id, { user_id: null });
  });
});

describe("ROP", () => {
  test("sees every row, and every record of a manager it names", async () => {
    const rop = await api.token("acct-managers", "ROP");
    expect((await figures(rop)).body.rows).toHaveLength(4);
    const leads = await api.request("GET", `${ANALYTICS}/${id}/leads?user_id=${BORIS.id}`, { token: rop });
    expect(leads.body.data.map((lead: { id: string }) => lead.id).sort()).toEqual(["lead-b1", "lead-b2", "lead-b3"]);
    const unassigned = await api.request("GET", `${ANALYTICS}/${id}/leads?unassigned=true`, { token: rop });
    expect(unassigned.body.data.map((lead: { id: string }) => lead.id).sort()).toEqual(["lead-n1", "lead-n2"]);
    expect((await api.request("GET", `${ANALYTICS}/${id}/leads`, { token: rop })).body.error.field).toBe("user_id");
  });
});

describe("hostile values on the analytics routes: a clear 4xx naming the field, or an empty answer, never a 5xx", () => {
  test("ids at and past the table's key limit, control characters, other digits, unknown collections and cursors", async () => {
    const rop = await api.token("acct-managers", "ROP");
    const get = (path: string) => api.request("GET", `${ANALYTICS}/${id}/${path}`, { token: rop });
    // 255 four-byte characters (1,020 UTF-8 bytes) and a NUL: ids no user has, so nothing is listed.
    for (const userId of ["\u{1F600}".repeat(255), "u-anna\u0000", " u-anna"]) {
      const response = await get(`leads?user_id=${encodeURIComponent(userId)}`);
      expect(response.status, JSON.stringify(userId).slice(0, 20)).toBe(200);
      expect(response.body.data).toEqual([]);
    }
    // Past the key limit (1,024 bytes): no record could have it.
    expect((await get(`leads?user_id=${"x".repeat(1025)}`)).status).toBe(404);
    expect((await get(`leads/${"x".repeat(1025)}`)).status).toBe(404);
    expect((await get(`leads/${encodeURIComponent("\u{1F600}".repeat(256))}`)).status).toBe(404);
    expect((await get("contacts?user_id=u-anna")).status).toBe(404);
    for (const [query, field] of [["limit=0", "limit"], ["limit=1001", "limit"], ["limit=1e3", "limit"], ["limit=-1", "limit"], [`limit=${encodeURIComponent("\uFF11\uFF10")}`, "limit"], ["unassigned=false", "unassigned"], ["user_id=", "user_id"]] as const) {
      const response = await get(`leads?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body.error.field, query).toBe(field);
    }
    const cursor = await get(`leads?user_id=${ANNA.id}&cursor=not-a-cursor-we-issued`);
    expect(cursor.status).toBe(422);
    const period = await figures(rop, `?from=${encodeURIComponent("\uFF12\uFF10\uFF12\uFF16-03-01")}`);
    expect(period.status).toBe(422);
    expect(period.body.error.field).toBe("from");
  });
});

describe("the figures follow the stored records from run to run", () => {
  const refreshes = () => api.logger.lines.filter((line) => line["message"] === "manager figures refreshed" && line["connection_id"] === id).length;
  const sync = async () => {
    const runId = (await api.request("POST", `${CONNECTIONS_PATH}/${id}/syncs`, { token: owner })).body.id;
    expect((await api.waitForRun(id, runId)).status).toBe("succeeded");
    await api.sync.managerRefresher.idle();
  };

  test("a run whose pages wrote no record (each listing the same as the run before's) reads no record for the figures; a run that moved a lead recomputes them", async () => {
    // The first run after a full read re-reads the watermarks' margin: a listing of its own, written once.
    await sync();
    const before = refreshes();
    await sync();
    expect(refreshes()).toBe(before);

    // The source changes: Anna's open lead a1 goes to Boris (updated_at advances, as the spec requires).
    DATA = { ...DATA, leads: DATA.leads!.map((lead) => (lead["id"] === "lead-a1" ? { ...lead, responsible_user_id: BORIS.id, updated_at: "2026-03-31T09:00:00Z" } : lead)) };
    await sync();
    expect(refreshes()).toBe(before + 1);
    const rows = (await figures(owner)).body.rows.map(comparableRow);
    for (const { user, ...counted } of rows) expect(counted, `row of ${user?.id ?? "no user"}`).toEqual(oracleRow(user?.id ?? null));
    const rop = await api.token("acct-managers", "ROP");
    const boris = await api.request("GET", `${ANALYTICS}/${id}/leads?user_id=${BORIS.id}`, { token: rop });
    expect(boris.body.data.map((lead: { id: string }) => lead.id).sort()).toEqual(["lead-a1", "lead-b1", "lead-b2", "lead-b3"]);
  });

  test("a user renamed in /users (a full list, several pages or one) is a change too", async () => {
    const before = refreshes();
    DATA = { ...DATA, users: DATA.users!.map((user) => (user["id"] === CARLA.id ? { ...user, name: "Carla Díaz-Ruiz" } : user)) };
    await sync();
    expect(refreshes()).toBe(before + 1);
    expect((await figures(owner)).body.rows[2].user.name).toBe("Carla Díaz-Ruiz");
  });

  test("an audit's end recomputes whatever the watermarks say: its heals move none", async () => {
    const before = refreshes();
    const audit = await api.request("POST", `${CONNECTIONS_PATH}/${id}/audits`, { token: owner });
    expect(audit.status).toBe(202);
    await api.waitForRun(id, audit.body.id);
    await api.sync.managerRefresher.idle();
    expect(refreshes()).toBe(before + 1);
  });
});
