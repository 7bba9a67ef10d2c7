import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type ApiResponse, type SourcedConnection } from "../../support/api-harness";

/*
 * The connection setting naming the /events type that records stage moves
 * (docs/history-feed-webhooks.md, "Stage history"), against one
 * loopback source serving both kinds: a type the default detection reads
 * ("stage_changed"), a type only the setting names ("Pipeline Move"), and that
 * type in another case ("pipeline move").
 */

const SOURCE_TOKEN = "src-stage-type-5e1a";
const CREATED = "2026-01-01T08:00:00.000Z";
const MOVED = "2026-02-01T10:00:00.000Z";
const UPDATED = "2026-02-02T00:00:00.000Z";
const SETTING = "Pipeline Move";
/** Each lead moves from a to b on the second sync, with one event of this type. */
const EVENT_TYPES: Record<string, string> = { L1: "stage_changed", L2: "Pipeline Move", L3: "pipeline move" };

let sync = 0;
const data = (): CrmData => ({
  pipelines: [pipelineRecord({ id: "p1", stages: [stageRecord({ id: "a", kind: "open", sort: 1 }), stageRecord({ id: "b", kind: "open", sort: 2 })] })],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: Object.keys(EVENT_TYPES).map((id) =>
    leadRecord({ id, pipeline_id: "p1", stage_id: sync === 0 ? "a" : "b", created_at: CREATED, updated_at: sync === 0 ? CREATED : UPDATED }),
  ),
  events:
    sync === 0
      ? []
      : Object.entries(EVENT_TYPES).map(([lead, type]) =>
          eventRecord({ id: `e-${lead}`, lead_id: lead, type, value_before: "a", value_after: { stage_id: "b", pipeline_id: "p1" }, created_at: MOVED, updated_at: MOVED }),
        ),
});

let env: SourcedConnection;
/** A second connection to the same source, created with the setting. */
let named: string;
beforeAll(async () => {
  env = await startSourcedConnection("acct-stage-type", crmSource(data, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2020-01-01T00:00:00Z" });
  const created = await env.api.request("POST", CONNECTIONS_PATH, {
    token: env.owner,
    body: { base_url: env.source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000, sync_since: "2020-01-01T00:00:00Z", stage_event_type: SETTING },
  });
  expect(created.status, created.text).toBe(201);
  expect(created.body.stage_event_type).toBe(SETTING);
  named = created.body.id as string;
});
afterAll(() => env.close());

const path = (id: string) => `${CONNECTIONS_PATH}/${id}`;
const runSync = async (id: string) => {
  const runId = (await env.api.request("POST", `${path(id)}/syncs`, { token: env.owner })).body.id;
  expect((await env.api.waitForRun(id, runId)).status).toBe("succeeded");
};
const history = async (id: string, lead: string) =>
  ((await env.api.request("GET", `${path(id)}/records/leads/${lead}/history`, { token: env.owner })).body.data as Array<Record<string, unknown>>).map((t) => [
    t["from_stage_id"],
    t["to_stage_id"],
    t["at"],
    t["source"],
    t["event_id"],
  ]);
/** What the history must say under a rule: the entry, then the move, reported at the event's time when the rule names the event's type. */
const expected = (lead: string, isStageEvent: (type: string) => boolean) => [
  [null, "a", CREATED, "observed", null],
  isStageEvent(EVENT_TYPES[lead]!) ? ["a", "b", MOVED, "reported", `e-${lead}`] : ["a", "b", UPDATED, "observed", null],
];

describe("the stage-event-type setting", () => {
  test("set: only events of exactly that type give reported transitions (another case and the default's type give none); unset: the default detection", async () => {
    await runSync(env.connectionId);
    await runSync(named);
    sync = 1;
    await runSync(env.connectionId);
    await runSync(named);
    for (const lead of Object.keys(EVENT_TYPES)) {
      expect(await history(named, lead), `${lead} under the setting`).toEqual(expected(lead, (type) => type === SETTING));
      expect(await history(env.connectionId, lead), `${lead} by default`).toEqual(expected(lead, (type) => /stage/i.test(type)));
    }
  }, 180_000);

  test("PATCH sets and clears it like the other settings: null goes back to the default; a bad value changes nothing", async () => {
    const patch = (body: Record<string, unknown>) => env.api.request("PATCH", path(env.connectionId), { token: env.owner, body });
    const set = await patch({ stage_event_type: "Deal stage · moved" });
    expect([set.status, set.body.stage_event_type]).toEqual([200, "Deal stage · moved"]);
    expectInvalid(await patch({ stage_event_type: "" }), /must not be empty/);
    expect((await env.api.request("GET", path(env.connectionId), { token: env.owner })).body.stage_event_type).toBe("Deal stage · moved");
    const cleared = await patch({ stage_event_type: null });
    expect([cleared.status, cleared.body.stage_event_type]).toEqual([200, null]);
    // Another workspace cannot set it.
    const stranger = await env.api.token("acct-stage-type-other");
    expect((await env.api.request("PATCH", path(env.connectionId), { token: stranger, body: { stage_event_type: SETTING } })).status).toBe(404);
  }, 60_000);

  const FOUR_BYTES = "😀";
  test.each([
    ["empty", "", /must not be empty/],
    ["101 characters", "t".repeat(101), /at most 100 characters/],
    ["101 four-byte characters (404 bytes)", FOUR_BYTES.repeat(101), /at most 100 characters/],
    ["a line feed", "stage\nmoved", /control characters/],
    ["a NUL", "stage\u0000", /control characters/],
    ["a C1 control", "stage\u0085", /control characters/],
    ["a leading space", " stage", /white space/],
    ["a lone surrogate", "stage\ud800", /valid Unicode/],
    ["a number", 5, /must be a string/],
  ])("a bad stage_event_type is a clear 422 on create and update: %s", async (_what, value, rule) => {
    const base = { base_url: env.source.baseUrl, token: SOURCE_TOKEN };
    expectInvalid(await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { ...base, stage_event_type: value } }), rule);
    expectInvalid(await env.api.request("PATCH", path(named), { token: env.owner, body: { stage_event_type: value } }), rule);
    expect((await env.api.request("GET", path(named), { token: env.owner })).body.stage_event_type).toBe(SETTING);
  }, 60_000);

  test("the longest accepted setting, 100 four-byte characters (400 bytes), is stored and read back exactly", async () => {
    const longest = FOUR_BYTES.repeat(100);
    const set = await env.api.request("PATCH", path(env.connectionId), { token: env.owner, body: { stage_event_type: longest } });
    expect([set.status, set.body.stage_event_type]).toEqual([200, longest]);
    expect((await env.api.request("GET", path(env.connectionId), { token: env.owner })).body.stage_event_type).toBe(longest);
  }, 60_000);
});

function expectInvalid(response: ApiResponse, rule: RegExp): void {
  expect(response.status, response.text).toBe(422);
  expect(response.body.error).toMatchObject({ code: "invalid_field", field: "stage_event_type", rule: expect.stringMatching(rule) });
}
