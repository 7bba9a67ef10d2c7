import { SYNC_ENTITIES } from "../../../lambdas/domain/core/entities";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020, { type ValidateFunction } from "ajv8/dist/2020";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RunSummarySchema } from "../../../lambdas/domain/core/run-summary";
import { ConnectionResourceSchema } from "../../../lambdas/domain/onboarding/connection-resource";
import { openApiDocument, RESPONSE_SCHEMAS } from "../../../lambdas/handlers/http/openapi";
import { ROUTES } from "../../../lambdas/handlers/http/routes";
import { RecordsPageSchema } from "../../../lambdas/domain/onboarding/record-operations";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness, type ApiResponse } from "../../support/api-harness";
import { startHoldableCrmSource, type LeadsHold } from "../../support/holdable-crm-source";
import type { SourceServer } from "../../support/source-server";

/**
 * The OpenAPI document says what the API really answers: every route is run
 * against a real service (local API Gateway server, DynamoDB Local, the local
 * state machine, a loopback source) and every response body is validated
 * (ajv, JSON Schema 2020-12, formats checked) against the document's schema
 * for that route and status. A field added, renamed or retyped on either side
 * fails here.
 */

const OPENAPI_PATH = "/api/v1/openapi.json";
const DOC_ID = "https://onboarding-api.invalid/openapi.json";
const SOURCE_TOKEN = "src-openapi-responses-5b1e";
const DATA = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord({ id: "lead-1" }), leadRecord({ id: "lead-2" }), leadRecord({ id: "lead-3" })],
  tasks: [],
  calls: [],
  events: [],
};

let api: ApiHarness;
let source: SourceServer;
let holdLeads: () => LeadsHold;
let owner: string;
let doc: any;
let ajv: Ajv2020;
/** `operationId status` of every response validated so far. */
const validated = new Set<string>();

/** RFC 3339 date-time, as JSON Schema's `format: date-time` means it. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function documentValidator(document: object): Ajv2020 {
  const validator = new Ajv2020({ allErrors: true, strict: true });
  // The document's own top-level keys: not JSON Schema keywords, but its #/components/... refs must resolve.
  for (const key of ["openapi", "info", "servers", "tags", "paths", "components", "x-error-statuses"]) validator.addKeyword(key);
  validator.addFormat("date-time", (text: string) => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)));
  validator.addFormat("uri", (text: string) => URL.canParse(text));
  validator.addSchema({ $id: DOC_ID, ...document });
  return validator;
}

beforeAll(async () => {
  // The figures' routes answer with what a run's end kept.
  api = await createApiHarness({ runEndFigures: true });
  const holdable = await startHoldableCrmSource(() => DATA, SOURCE_TOKEN);
  source = holdable.server;
  holdLeads = holdable.holdLeads;
  owner = await api.token("acct-openapi-responses");
  doc = (await api.request("GET", OPENAPI_PATH)).body;
  ajv = documentValidator(doc);
});
afterAll(async () => {
  await source?.close();
  await api?.close();
});

/** The route a request reaches, by method and path template. */
function routeOf(method: string, path: string): { template: string; operationId: string } {
  const pathOnly = path.split("?")[0]!;
  for (const route of ROUTES) {
    const [routeMethod = "", template = ""] = route.routeKey.split(" ");
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (routeMethod === method && pattern.test(pathOnly)) return { template, operationId: route.operationId };
  }
  throw new Error(`no route for ${method} ${path}`);
}

/** The document's schema of the response body of one operation and status; null when it documents no body. */
function responseValidator(method: string, template: string, status: number): ValidateFunction | null {
  const response = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)];
  expect(response, `${method} ${template} does not document status ${status}`).toBeDefined();
  if (response.content === undefined) return null;
  const pointer = `/paths/${template.replaceAll("~", "~0").replaceAll("/", "~1")}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  return ajv.getSchema(`${DOC_ID}#${pointer}`) ?? null;
}

/** A real request to the API whose response must be exactly what the document says for its route and status. */
async function call(method: string, path: string, init: Parameters<ApiHarness["request"]>[2] = { token: owner }): Promise<ApiResponse> {
  const response = await api.request(method, path, init);
  const { template, operationId } = routeOf(method, path);
  const validate = responseValidator(method, template, response.status);
  if (validate === null) {
    expect(response.body, `${operationId} ${response.status}: the document gives this response no body`).toBeNull();
  } else {
    const valid = validate(response.body);
    expect(valid, `${operationId} ${response.status}: ${JSON.stringify(validate.errors)}\n${response.text}`).toBe(true);
  }
  validated.add(`${operationId} ${response.status}`);
  return response;
}

describe("the onboarding API's OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result, JSON.stringify(result.errors)).toMatchObject({ valid: true });
  });

  test("every real response of every route validates against the document's schema for its route and status", async () => {
    const created = await call("POST", CONNECTIONS_PATH, {
      token: owner,
      body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000, sync_since: "2026-01-01T00:00:00Z" },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const connection = `${CONNECTIONS_PATH}/${id}`;

    expect((await call("GET", CONNECTIONS_PATH)).body.data.length).toBeGreaterThan(0);
    expect((await call("GET", connection)).status).toBe(200);
    expect((await call("PATCH", connection, { token: owner, body: { rate_limit: 999 } })).status).toBe(200);
    expect((await call("POST", `${connection}/test`)).body).toMatchObject({ reachable: true, authenticated: true, pipelines_found: 1 });
    const draft = await call("POST", `${CONNECTIONS_PATH}/test`, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } });
    expect(draft.body).toMatchObject({ reachable: true, authenticated: true, pipelines_found: 1 });
    expect((await call("POST", `${connection}/pause`)).body.paused).toBe(true);
    expect((await call("POST", `${connection}/resume`)).body.paused).toBe(false);

    // A webhook endpoint before the run, so its end makes an attempt (to a port nothing listens on: a connection error).
    const hook = await call("POST", "/api/v1/crm/custom/webhooks", { token: owner, body: { url: "http://127.0.0.1:9/hooks", event_types: ["run.finished"], description: "Ops" } });
    expect(hook.status, hook.text).toBe(201);

    // A whole run: its summary holds every entity row, finished.
    const run = await call("POST", `${connection}/syncs`);
    expect(run.status).toBe(202);
    await api.waitForRun(id, run.body.id);
    const summary = (await call("GET", `${connection}/syncs/${run.body.id}`)).body;
    expect(summary.status, JSON.stringify(summary)).toBe("succeeded");
    expect((await call("GET", `${connection}/syncs`)).body.data).toHaveLength(1);

    // Records, a page at a time: a cursor on the first page, none on the last.
    const first = await call("GET", `${connection}/records/leads?limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const last = await call("GET", `${connection}/records/leads?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(last.body).toMatchObject({ next_cursor: null });
    expect((await call("GET", `${connection}/analytics/funnel`)).status).toBe(200);
    expect((await call("GET", `${connection}/records`)).body.collections.pipelines).toBeGreaterThan(0);
    // One record with its lineage, and one not stored (both null).
    expect((await call("GET", `${connection}/records/leads/${first.body.data[0].id}`)).body.lineage.writes).toBe(1);
    expect((await call("GET", `${connection}/records/leads/never-stored`)).body).toEqual({ record: null, lineage: null });
    expect((await call("GET", "/api/v1/crm/custom/notifications")).body.data[0]).toMatchObject({ detail_type: "Sync Run Finished" });
    expect((await call("GET", `${connection}/quality`)).status).toBe(200);

    // The managers: the owner's links, and the analytics every role reads once the run's end has refreshed them.
    await api.sync.managerRefresher.idle();
    const analytics = `/api/v1/analytics/connections/${id}`;
    expect((await call("GET", `${connection}/managers`)).body.data).toHaveLength(1);
    expect((await call("PUT", `${connection}/managers/user-1`, { token: owner, body: { user_id: "member-1" } })).body.linked_by).toBe("owner");
    expect((await call("DELETE", `${connection}/managers/user-1`)).body.unlinked).toBe(true);
    expect((await call("GET", "/api/v1/analytics/connections")).body.data).toHaveLength(1);
    expect((await call("GET", `${analytics}/managers`)).body.rows).toHaveLength(1);
    expect((await call("GET", `${analytics}/leads?user_id=user-1&limit=2`)).body.data).toHaveLength(2);
    expect((await call("GET", `${analytics}/leads/lead-1`)).body.record.id).toBe("lead-1");
    const unlinked = await api.token("acct-openapi-responses", "MOP", { user: "member-2" });
    expect((await call("GET", `${analytics}/managers`, { token: unlinked })).status).toBe(403);

    // A run caught in flight and cancelled: unfinished rows are cancelled; a second cancel is a 409.
    const hold = holdLeads();
    const held = await call("POST", `${connection}/syncs`);
    await hold.reached;
    const cancelled = await call("POST", `${connection}/syncs/${held.body.id}/cancel`);
    expect(cancelled.body.entities.some((row: { status: string }) => row.status === "cancelled")).toBe(true);
    hold.release();
    await api.waitForRun(id, held.body.id);
    expect((await call("POST", `${connection}/syncs/${held.body.id}/cancel`)).status).toBe(409);

    expect((await call("POST", `${connection}/reset`, { token: owner, body: { entity: "leads" } })).body).toEqual({ reset: ["leads"], run: null });
    const resetAndRun = await call("POST", `${connection}/reset`, { token: owner, body: { start_sync: true } });
    expect(resetAndRun.body.run).toMatchObject({ status: "running" });
    await api.waitForRun(id, resetAndRun.body.run.id);

    const audit = await call("POST", `${connection}/audits`);
    expect(audit.status, audit.text).toBe(202);
    await api.waitForRun(id, audit.body.id);
    expect((await call("GET", `${connection}/audits/${audit.body.id}`)).body.status).toBe("succeeded");
    expect((await call("GET", `${connection}/audits`)).body.data).toHaveLength(1);
    expect((await call("GET", `${connection}/records/leads/lead-1/explain`)).body).toMatchObject({ present: true });
    expect((await call("GET", `${connection}/records/leads/no-such-lead/explain`)).body).toMatchObject({ present: false, verdict: "never-returned" });
    expect((await call("GET", `${connection}/records/leads/lead-1/history`)).body.data.length).toBeGreaterThan(0);
    expect((await call("GET", `${connection}/analytics/velocity`)).body.pipelines.length).toBeGreaterThan(0);
    const feed = await call("GET", `${connection}/changes?limit=5`);
    expect(feed.body.data).toHaveLength(5);
    expect((await call("GET", `${connection}/changes?cursor=${encodeURIComponent(feed.body.next_cursor)}`)).status).toBe(200);

    const check = await call("POST", `${connection}/preflight`);
    expect(check.status).toBe(202);
    await api.preflightLauncher.idle();
    expect((await call("GET", `${connection}/preflight/${check.body.id}`)).body.status).toBe("succeeded");

    const webhook = `/api/v1/crm/custom/webhooks/${hook.body.id}`;
    await api.sync.webhooks.idle();
    expect((await call("GET", "/api/v1/crm/custom/webhooks")).body.data).toHaveLength(1);
    expect((await call("GET", webhook)).body).not.toHaveProperty("secret");
    expect((await call("GET", `${webhook}/deliveries`)).body.data.length).toBeGreaterThan(0);
    expect((await call("POST", `${webhook}/rotate`)).body.secret).toMatch(/^whsec_/);
    expect((await call("DELETE", webhook)).status).toBe(204);

    // The error responses: each status the handler gives a client's mistake, with its documented body.
    expect((await call("GET", CONNECTIONS_PATH, { token: null })).status).toBe(401);
    expect((await call("GET", CONNECTIONS_PATH, { token: await api.token("acct-openapi-responses", "ROP") })).status).toBe(403);
    expect((await call("POST", CONNECTIONS_PATH, { token: owner, rawBody: "{" })).status).toBe(400);
    expect((await call("PATCH", connection, { token: owner, body: { rate_limit: 0 } })).status).toBe(422);
    expect((await call("GET", `${connection}/records/leads?cursor=not-a-cursor`)).status).toBe(422);
    expect((await call("GET", `${connection}/syncs/20260101T000000000Z-unknown`)).status).toBe(404);

    expect((await call("DELETE", connection)).status).toBe(204);
    expect((await call("GET", connection)).status).toBe(404);

    // Every route's success response was among them.
    const missing = ROUTES.map((route) => `${route.operationId} ${route.successStatus}`).filter((pair) => !validated.has(pair));
    expect(missing).toEqual([]);
  }, 90_000);
});

describe("the document's response schemas are generated from the valibot schemas", () => {
  test("each response component is the JSON Schema of the valibot schema its type is inferred from", () => {
    const components = openApiDocument()["components"] as { schemas: Record<string, any> };
    expect(Object.keys(components.schemas.Connection.properties)).toEqual(Object.keys(ConnectionResourceSchema.entries));
    expect(Object.keys(components.schemas.RunSummary.properties)).toEqual(Object.keys(RunSummarySchema.entries));
    const row = components.schemas.RunSummary.properties.entities.items.properties;
    expect(Object.keys(row)).toEqual(["entity", "status", "pages", "records", "error", "failure", "waits", "findings"]);
    // A failed row's failure: the rule, the record and field (null where they do not apply), the detail and the fix.
    const failure = row.failure.anyOf?.find((variant: { type?: string }) => variant.type === "object") ?? row.failure;
    expect(Object.keys(failure.properties)).toEqual(["rule", "record_id", "field", "detail", "fix"]);
    expect(Object.keys(components.schemas.RecordsPage.properties)).toEqual(Object.keys(RecordsPageSchema.entries));
    for (const name of Object.keys(RESPONSE_SCHEMAS)) expect(components.schemas, name).toHaveProperty(name);
  });

  test("a field added to a domain schema shows in the document, required, with its type; and it is gone once removed", () => {
    const entries = RunSummarySchema.entries as Record<string, v.GenericSchema>;
    entries["added_for_test"] = v.pipe(v.number(), v.integer());
    try {
      const summary = (openApiDocument()["components"] as { schemas: Record<string, any> }).schemas.RunSummary;
      expect(summary.properties.added_for_test).toEqual({ type: "integer" });
      expect(summary.required).toContain("added_for_test");
    } finally {
      delete entries["added_for_test"];
    }
    const summary = (openApiDocument()["components"] as { schemas: Record<string, any> }).schemas.RunSummary;
    expect(summary.properties).not.toHaveProperty("added_for_test");
  });

  test("the validator is real: a body that breaks the document's Connection schema is refused", () => {
    const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/Connection`)!;
    const good = {
      id: "c",
      business_account_id: "a",
      crm_type: "custom",
      base_url: "https://crm.example.com",
      name: null,
      rate_limit: 5,
      sync_since: "2026-01-01T00:00:00.000Z",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      paused: false,
      schedule: null,
      audit_schedule: "7d",
      freshness_hours: null,
      idle_days: 14,
      stage_event_type: null,
      freshness: Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, { data_as_of: null, watermark: null }])),
      stale: false,
    };
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...good, token: "x" })).toBe(false);
    expect(validate({ ...good, rate_limit: 1.5 })).toBe(false);
    expect(validate({ ...good, created_at: "yesterday" })).toBe(false);
    expect(validate({ ...good, name: "Acme" })).toBe(true);
    expect(validate({ ...good, name: "" })).toBe(false);
    expect(validate({ ...good, name: "n".repeat(101) })).toBe(false);
    const { paused: _paused, ...withoutPaused } = good;
    expect(validate(withoutPaused)).toBe(false);
  });
});
