import { describe, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import { ERROR_DETAIL_MAX_CHARS } from "../../../lambdas/domain/core/limits";
import { RULES_BY_ID } from "../../../lambdas/domain/source-contract/rules/catalog";
import { PRICE_RULE } from "../../../lambdas/domain/records/fields/price";
import { leadRecord } from "../../builders/source-records";
import { minuteStamp, smallCrm, smallLeads } from "../../builders/small-crm";
import { crmSource } from "../../support/crm-source";
import { useSourceServers } from "../../support/source-servers";
import { useSyncHarness, entityRow } from "../../support/sync-harness";

/**
 * Every failed entity row names the catalog's rule, the record and field when
 * one record is at fault, a detail for a person (never an error class) and the
 * fix: through the real definition (the failure crosses the Catch in the
 * Lambda error envelope), a loopback source and DynamoDB Local.
 */

const TOKEN = "entity-failures-token-8c1e";
const CLASS_NAME = /\b\w+(Error|Exception)\b/;

const harness = useSyncHarness({ timeScale: 0.01 });
const serve = useSourceServers("all");


describe.concurrent("a failed entity names its rule, record, field and fix", () => {
  test("lead.price-numeric: leads failing on page 2 (100 of 150 stored) name the record, the field, the rule and its fix", async ({ expect }) => {
    const data = smallCrm();
    data.leads = smallLeads(150, (i) => (i === 120 ? { price: "a lot" } : {}));
    const server = await serve(crmSource(() => data, { token: TOKEN }));
    const connection = await harness().addConnection({ baseUrl: server.baseUrl, token: TOKEN });
    const summary = await harness().sync(connection);

    const leads = entityRow(summary, "leads")!;
    expect(leads).toMatchObject({ status: "failed", pages: 1, records: 100 });
    expect(leads.failure).toEqual({
      rule: "lead.price-numeric",
      record_id: "l120",
      field: "price",
      detail: `record l120, field price, rule lead.price-numeric: ${PRICE_RULE}`,
      fix: RULES_BY_ID.get("lead.price-numeric")!.fix,
    });
    expect(leads.error).toBe(leads.failure!.detail);
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(100);
    // Every other row succeeded and names no failure.
    for (const row of summary.entities.filter((row) => row.entity !== "leads")) expect(row, row.entity).toMatchObject({ status: "succeeded", failure: null, error: null });
  });

  test("record.id: an id of 300 characters fails its page, and the error still names the field and the rule within 300 characters", async ({ expect }) => {
    const longId = `lead-${"x".repeat(295)}`;
    const data = smallCrm();
    data.leads = [leadRecord({ id: longId, pipeline_id: "p1", stage_id: "open", updated_at: minuteStamp(1) })];
    const server = await serve(crmSource(() => data, { token: TOKEN }));
    const summary = await harness().sync(await harness().addConnection({ baseUrl: server.baseUrl, token: TOKEN }));

    const leads = entityRow(summary, "leads")!;
    expect(leads.status).toBe("failed");
    expect([...leads.error!].length).toBeLessThanOrEqual(ERROR_DETAIL_MAX_CHARS);
    expect(leads.error).toMatch(/^record lead-x+…, field id, rule record\.id: /);
    expect(leads.failure).toMatchObject({ rule: "record.id", field: "id", record_id: `${longId.slice(0, 255)}…`, fix: RULES_BY_ID.get("record.id")!.fix });
  });

  test("auth.token-accepted: a 401 fails every entity with the token-refused rule and its fix, and no class name in its error", async ({ expect }) => {
    const server = await serve(crmSource(smallCrm, { token: TOKEN }));
    const summary = await harness().sync(await harness().addConnection({ baseUrl: server.baseUrl, token: `${TOKEN}-revoked` }));

    expect(server.requests).toHaveLength(1);
    expect(summary.entities.map((row) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
    for (const row of summary.entities) {
      expect(row, row.entity).toMatchObject({
        status: "failed",
        error: "the source refused the token (401): invalid token",
        failure: { rule: "auth.token-accepted", record_id: null, field: null, fix: RULES_BY_ID.get("auth.token-accepted")!.fix },
      });
      expect(row.error, row.entity).not.toMatch(CLASS_NAME);
    }
  });
});
