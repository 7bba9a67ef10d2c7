import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { leadRecord, pipelineRecord, stageRecord, userRecord, contactRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { CONNECTIONS_PATH, startSourcedConnection, type SourcedConnection } from "../../support/api-harness";

/**
 * Freshness tells the truth: an entity's data_as_of is when it last finished a
 * run with every page committed, and a required entity that failed in the last
 * finished run makes the connection unhealthy, named in the overview.
 */
const SOURCE_TOKEN = "src-health-3e91";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const HOUR = 3_600_000;

/** The domain's clock, set by the test (timestamps as data; nothing waits on it). */
let time = T0;
const clock: Clock = { now: () => new Date(time) };

const stamp = (minute: number) => new Date(Date.UTC(2026, 1, 1, 0, minute)).toISOString();
const leads = (from: number, count: number, bad?: number) =>
  Array.from({ length: count }, (_, i) =>
    leadRecord({ id: `lead-${from + i}`, pipeline_id: "p1", stage_id: "open", updated_at: stamp(from + i), ...(from + i === bad ? { price: "a lot" } : {}) }),
  );

const data: CrmData = {
  pipelines: [pipelineRecord({ id: "p1", stages: [stageRecord({ id: "open", kind: "open" })] })],
  users: [userRecord({ id: "u1" })],
  contacts: [contactRecord({ id: "c1", updated_at: stamp(0) })],
  leads: leads(0, 50),
};

let env: SourcedConnection;
const overview = async () => {
  const listed = await env.api.request("GET", CONNECTIONS_PATH, { token: env.owner });
  return listed.body.data.find((item: { id: string }) => item.id === env.connectionId);
};
const sync = async () => {
  const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${env.connectionId}/syncs`, { token: env.owner });
  return env.api.waitForRun(env.connectionId, started.body.id);
};

beforeAll(async () => {
  env = await startSourcedConnection("acct-health", crmSource(() => data, { token: SOURCE_TOKEN }), { token: SOURCE_TOKEN, syncSince: "2026-01-01T00:00:00Z" }, { clock });
});
afterAll(() => env.close());

describe("freshness tells the truth, and a failed required entity makes the connection unhealthy", () => {
  test("data_as_of: leads failing on page 2 (100 of 150 stored) keep the previous complete run's data_as_of; the overview is not healthy and names leads", async () => {
    time = T0 + HOUR;
    expect((await sync()).status).toBe("succeeded");
    const complete = new Date(T0 + HOUR).toISOString();
    expect(await overview()).toMatchObject({
      freshness: { leads: { data_as_of: complete } },
      health: { healthy: true, failed_entities: [] },
    });

    // 150 changed leads, the 121st of them broken: page 1 (100) commits, page 2 fails.
    data.leads = leads(100, 150, 220);
    time = T0 + 2 * HOUR;
    const failed = await sync();
    const row = failed.entities.find((entity) => entity.entity === "leads")!;
    expect(row).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(row.failure).toEqual({
      rule: "lead.price-numeric",
      record_id: "lead-220",
      field: "price",
      detail: expect.stringMatching(/^record lead-220, field price, rule lead\.price-numeric: /),
      fix: RULES_BY_ID.get("lead.price-numeric")!.fix,
    });

    const item = await overview();
    // The watermark moved with page 1; data_as_of did not: leads are as of the last complete run. Pipelines finished this run.
    expect(item.freshness.leads).toEqual({ data_as_of: complete, watermark: stamp(199) });
    expect(item.freshness.pipelines.data_as_of).toBe(new Date(T0 + 2 * HOUR).toISOString());
    expect(item.health).toEqual({ healthy: false, run_id: failed.id, failed_entities: ["leads"] });
    // Not stale (freshness_hours unknown here): unhealthy for the failure alone.
    expect(item.stale).toBe(false);

    // The next run that finishes leads makes it healthy again, and moves data_as_of.
    data.leads = leads(100, 150);
    time = T0 + 3 * HOUR;
    expect((await sync()).status).toBe("succeeded");
    expect(await overview()).toMatchObject({
      freshness: { leads: { data_as_of: new Date(T0 + 3 * HOUR).toISOString() } },
      health: { healthy: true, failed_entities: [] },
    });
  });
});
