import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { contactRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type SourcedConnection } from "../../support/api-harness";

const SOURCE_TOKEN = "src-history-api-7b1e";
const STAGES = ["s-new", "s-call", "s-offer", "s-won", "s-lost"] as const;
const LEADS = 12;

/**
 * A source whose leads move between syncs: at sync n, lead i stands in the
 * stage the test's own rule gives it (some move one step, some jump, some stay
 * and are only edited, some never change), its updated_at advancing whenever
 * it changed. The expected history is computed from the same rule.
 */
function stageAt(lead: number, sync: number): (typeof STAGES)[number] {
  if (lead % 4 === 0) return STAGES[0]; // never moves
  if (lead % 4 === 1) return STAGES[Math.min(sync, 3)]!; // one step per sync, to won
  if (lead % 4 === 2) return sync === 0 ? STAGES[0] : STAGES[4]; // jumps to lost, then stays
  return STAGES[(sync * 2) % 4]!; // back and forth: new, offer, new, offer
}
const created = (lead: number) => `2026-01-${String(1 + lead).padStart(2, "0")}T08:00:00.000Z`;
/** updated_at of lead i at sync n: moves and edits both advance it; a lead that never changes keeps its first. */
const updated = (lead: number, sync: number) => (lead % 4 === 0 ? "2026-02-01T00:00:00.000Z" : `2026-02-${String(1 + sync).padStart(2, "0")}T${String(lead).padStart(2, "0")}:00:00.000Z`);

let sync = 0;
const data = (): CrmData => ({
  pipelines: [pipelineRecord({ id: "p1", stages: STAGES.map((id, sort) => stageRecord({ id, name: id, kind: id === "s-won" ? "won" : id === "s-lost" ? "lost" : "open", sort })) })],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: Array.from({ length: LEADS }, (_, i) =>
    leadRecord({ id: `lead-${i}`, pipeline_id: "p1", stage_id: stageAt(i, sync), name: `Lead ${i} v${i % 4 === 0 ? 0 : sync}`, created_at: created(i), updated_at: updated(i, sync) }),
  ).sort((a, b) => String(a["updated_at"]).localeCompare(String(b["updated_at"]))),
});

/** What the history of lead i must be after syncs 0..last: its entry, then one transition per change of stage. */
function expectedHistory(lead: number, last: number) {
  const rows: [string | null, string, string][] = [[null, stageAt(lead, 0), created(lead)]];
  for (let n = 1; n <= last; n += 1) {
    if (stageAt(lead, n) !== stageAt(lead, n - 1)) rows.push([stageAt(lead, n - 1), stageAt(lead, n), updated(lead, n)]);
  }
  return rows;
}

let env: SourcedConnection;
beforeAll(async () => {
  env = await startSourcedConnection("acct-history", crmSource(data, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" });
});
afterAll(() => env.close());

const historyOf = async (lead: string) => {
  const response = await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/records/leads/${encodeURIComponent(lead)}/history`, { token: env.owner });
  expect(response.status).toBe(200);
  return response.body as { lead_id: string; data: Array<Record<string, unknown>> };
};
const runSync = async () => {
  const runId = (await env.api.request("POST", `${CONNECTIONS_PATH}/${env.connectionId}/syncs`, { token: env.owner })).body.id;
  expect((await env.api.waitForRun(env.connectionId, runId)).status).toBe("succeeded");
  return runId as string;
};

describe("GET /connections/{id}/records/leads/{leadId}/history", () => {
  test("transitions observed over four syncs of a source whose leads move equal what the test computes", async () => {
    const runs: string[] = [];
    for (sync = 0; sync <= 3; sync += 1) runs.push(await runSync());
    for (let i = 0; i < LEADS; i += 1) {
      const history = await historyOf(`lead-${i}`);
      expect(history.lead_id).toBe(`lead-${i}`);
      expect(history.data.map((t) => [t["from_stage_id"], t["to_stage_id"], t["at"]])).toEqual(expectedHistory(i, 3));
      expect(history.data.every((t) => t["source"] === "observed" && t["pipeline_id"] === "p1" && t["event_id"] === null)).toBe(true);
    }
    // Each move names the run whose page saw it and the lead's updated_at there.
    const mover = await historyOf("lead-1");
    expect(mover.data.map((t) => t["run_id"])).toEqual(runs);
    expect(mover.data.slice(1).map((t) => t["source_updated_at"])).toEqual([1, 2, 3].map((n) => updated(1, n)));
  }, 120_000);

  test("a reset re-reads every lead unchanged: the re-sent identical leads record nothing", async () => {
    sync = 3;
    const reset = await env.api.request("POST", `${CONNECTIONS_PATH}/${env.connectionId}/reset`, { token: env.owner, body: { entity: "leads" } });
    expect(reset.status).toBe(200);
    await runSync();
    for (let i = 0; i < LEADS; i += 1) expect((await historyOf(`lead-${i}`)).data.length).toBe(expectedHistory(i, 3).length);
  });

  test("velocity from that history equals the test's own figures: January's entries into the first stage, their conversion, the open leads waiting longest", async () => {
    const response = await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/analytics/velocity`, { token: env.owner });
    expect(response.status).toBe(200);
    const [p1] = response.body.pipelines;
    expect(p1.periods.map((period: { period: string }) => period.period)).toEqual(["2026-01", "2026-02"]);
    // Every lead entered s-new in January (its created_at); those with i % 4 === 1 went on to s-call and to won.
    const movers = Array.from({ length: LEADS }, (_, i) => i).filter((i) => stageAt(i, 3) === "s-won").length;
    expect(p1.periods[0].stages[0]).toMatchObject({ stage_id: "s-new", entered: LEADS, to_next: movers, to_won: movers, conversion_to_next: movers / LEADS });
    // Open now: the leads that never moved (in s-new since January), then those back in s-offer since the last sync's updated_at.
    const open = Array.from({ length: LEADS }, (_, i) => i).filter((i) => stageAt(i, 3) === "s-new" || stageAt(i, 3) === "s-offer");
    const since = (i: number) => (stageAt(i, 3) === "s-new" ? created(i) : updated(i, 3));
    const expected = open.sort((a, b) => since(a).localeCompare(since(b))).map((i) => `lead-${i}`);
    expect(p1.longest_waiting.map((waiting: { lead_id: string }) => waiting.lead_id)).toEqual(expected);
  });

  test("a lead never stored has no transitions; an id over 1024 UTF-8 bytes is a 404; explain links to the history", async () => {
    expect((await historyOf("no-such-lead")).data).toEqual([]);
    const long = await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/records/leads/${"x".repeat(1025)}/history`, { token: env.owner });
    expect(long.status).toBe(404);
    const explained = await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/records/leads/lead-1/explain`, { token: env.owner });
    expect(explained.body.history).toBe(`${CONNECTIONS_PATH}/${env.connectionId}/records/leads/lead-1/history`);
    const contact = await env.api.request("GET", `${CONNECTIONS_PATH}/${env.connectionId}/records/contacts/contact-1/explain`, { token: env.owner });
    expect(contact.body.history).toBeNull();
  });

  test("another workspace's owner gets 404 for the same connection, ROP and MOP 403", async () => {
    const path = `${CONNECTIONS_PATH}/${env.connectionId}/records/leads/lead-1/history`;
    expect((await env.api.request("GET", path, { token: await env.api.token("acct-history-other") })).status).toBe(404);
    for (const role of ["ROP", "MOP"] as const) expect((await env.api.request("GET", path, { token: await env.api.token("acct-history", role) })).status).toBe(403);
  });
});
