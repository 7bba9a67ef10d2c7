import { beforeAll, describe, expect, test } from "vitest";
import { SYNC_ENTITIES } from "../../../lambdas/domain/core/entities";
import { entityDefinition } from "../../../lambdas/domain/source-contract/entity-catalog";
import { handler as publicHandler } from "../../../lambdas/runtimes/aws/entrypoints/openapi-document";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../../../lambdas/handlers/http/routes";
import { buildSourceApiOpenApi } from "../../../lambdas/domain/preflight/source-api-openapi";
import { CONNECTIONS_PATH, useOwnerApi, type ApiResponse } from "../../support/api-harness";

/**
 * The OpenAPI document describes exactly what is served: every route of the
 * route table and nothing else, and every documented operation reaches the
 * handler (never the gateway's own 404).
 */

const OPENAPI_PATH = "/api/v1/openapi.json";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const UNKNOWN_ID = "00000000-0000-0000-0000-000000000000";
const GATEWAY_NOT_FOUND = { message: "Not Found" };

const env = useOwnerApi("acct-openapi");
let doc: any;

beforeAll(async () => {
  doc = (await env.api.request("GET", OPENAPI_PATH)).body;
});

/** `METHOD /path` of every operation in the document. */
function documentedOperations(): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** A response the handler produced: a success, or its JSON error body with a code. */
function expectFromHandler(response: ApiResponse, operation: string): void {
  expect(response.body, operation).not.toEqual(GATEWAY_NOT_FOUND);
  if (response.status >= 200 && response.status < 300) return;
  expect(response.body, `${operation}: ${response.text}`).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
}

describe("GET /api/v1/source-api/openapi.json", () => {
  test("the source API's contract is served without a session token: the document the conformance kit is built on", async () => {
    const response = await env.api.request("GET", "/api/v1/source-api/openapi.json");
    expect(response.status).toBe(200);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(buildSourceApiOpenApi())));
    expect(response.body.openapi).toBe("3.1.0");
    expect(Object.keys(response.body.paths).sort()).toEqual(SYNC_ENTITIES.map((entity) => entityDefinition(entity).path).sort());
  });
});

describe("the public routes' own Lambda (lambdas/runtimes/aws/entrypoints/openapi-document.ts)", () => {
  test("answers each public route with the document the API serves, and 404 for any other route key", async () => {
    for (const routeKey of PUBLIC_ROUTE_KEYS) {
      const path = routeKey.split(" ")[1]!;
      const fromLambda = await publicHandler({ routeKey });
      expect(fromLambda.statusCode, routeKey).toBe(200);
      expect(JSON.parse(fromLambda.body!), routeKey).toEqual((await env.api.request("GET", path)).body);
    }
    expect((await publicHandler({ routeKey: "GET /api/v1/crm/custom/connections" })).statusCode).toBe(404);
  });
});

describe("GET /api/v1/openapi.json", () => {
  test("200 without a session token: OpenAPI 3.1.0", async () => {
    const response = await env.api.request("GET", OPENAPI_PATH);
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
    expect(response.body.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  test("the (method, path) pairs in paths are exactly the route keys of ROUTES", () => {
    const documented = documentedOperations().sort();
    expect(documented).toEqual(ROUTES.map((route) => route.routeKey).sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  test("each operation has its route's operationId, its success status and the env.owner session security", () => {
    for (const route of ROUTES) {
      const [method = "", path = ""] = route.routeKey.split(" ");
      const operation = doc.paths[path][method.toLowerCase()];
      expect(operation.operationId).toBe(route.operationId);
      expect(operation.responses).toHaveProperty(String(route.successStatus));
      expect(operation.security).toEqual([{ ownerSession: [] }]);
      const params = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      expect((operation.parameters ?? []).filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name)).toEqual(params);
    }
  });

  test("request bodies are described from the schemas the handler validates with", () => {
    const create = doc.paths[CONNECTIONS_PATH].post.requestBody.content["application/json"].schema;
    expect(Object.keys(create.properties).sort()).toEqual(["audit_schedule", "base_url", "freshness_hours", "idle_days", "name", "rate_limit", "stage_event_type", "sync_since", "token", "trigger_sync"]);
    expect([...create.required].sort()).toEqual(["base_url", "token"]);
    expect(create.properties.rate_limit).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
    expect(create.properties.trigger_sync).toMatchObject({ type: "boolean" });
    expect(create.properties.token).toMatchObject({ type: "string", minLength: 1 });
    expect(create.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });

    const update = doc.paths[`${CONNECTIONS_PATH}/{id}`].patch.requestBody.content["application/json"].schema;
    expect(Object.keys(update.properties).sort()).toEqual(["audit_schedule", "base_url", "freshness_hours", "idle_days", "name", "rate_limit", "stage_event_type", "sync_since", "token"]);
    expect(update.required ?? []).toEqual([]);
    const reset = doc.paths[`${CONNECTIONS_PATH}/{id}/reset`].post.requestBody;
    expect(reset.required).toBe(false);
    expect(Object.keys(reset.content["application/json"].schema.properties).sort()).toEqual(["entity", "start_sync"]);
    expect(reset.content["application/json"].schema.properties.entity.enum).toEqual(["contacts", "leads", "tasks", "calls", "events"]);
    // Only the body-taking operations document a body.
    const withBody = documentedOperations().filter((operation) => {
      const [method = "", path = ""] = operation.split(" ");
      return doc.paths[path][method.toLowerCase()].requestBody !== undefined;
    });
    expect(withBody.sort()).toEqual([`PATCH ${CONNECTIONS_PATH}/{id}`, `POST ${CONNECTIONS_PATH}`, `POST ${CONNECTIONS_PATH}/test`, `POST ${CONNECTIONS_PATH}/{id}/reset`, `PUT ${CONNECTIONS_PATH}/{id}/managers/{sourceUserId}`, "POST /api/v1/crm/custom/webhooks"].sort());
    // A webhook endpoint: where to, which events, a description counted in code points; never a secret sent in.
    const webhook = doc.paths["/api/v1/crm/custom/webhooks"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(webhook.properties).sort()).toEqual(["description", "event_types", "url"]);
    expect([...webhook.required].sort()).toEqual(["event_types", "url"]);
    expect(webhook.properties.event_types).toMatchObject({ type: "array", items: { enum: ["run.finished", "audit.finished", "connection.stale", "changes.committed"] } });
    expect(webhook.properties.description).toMatchObject({ type: "string", maxLength: 200 });
    expect(webhook.properties.url).toMatchObject({ type: "string", format: "uri", maxLength: 2048 });
    expect(webhook.additionalProperties).toBe(false);
    // The test of what was typed takes what creating the connection takes to reach the source, and nothing else.
    const draft = doc.paths[`${CONNECTIONS_PATH}/test`].post.requestBody.content["application/json"].schema;
    expect(Object.keys(draft.properties).sort()).toEqual(["base_url", "rate_limit", "token"]);
    expect([...draft.required].sort()).toEqual(["base_url", "token"]);
    expect(draft.properties.base_url).toEqual(create.properties.base_url);
  });
});

describe("every documented operation is actually served", () => {
  test.each(ROUTES.map((route) => route.routeKey))("%s reaches the handler", async (routeKey) => {
    expect(documentedOperations()).toContain(routeKey);
    const [method = "", template = ""] = routeKey.split(" ");
    const path = template.replace("{id}", UNKNOWN_ID).replace("{runId}", "20260101T000000000Z-unknown").replace("{entity}", "leads").replace("{collection}", "leads");
    // Where a body is documented: {} for the create (the handler's 422), a valid change for the PATCH (the handler's 404).
    const operation = doc.paths[template][method.toLowerCase()];
    const body = operation.requestBody ? (method === "PATCH" ? { rate_limit: 2 } : {}) : undefined;
    const response = await env.api.request(method, path, { token: env.owner, ...(body === undefined ? {} : { body }) });
    expectFromHandler(response, routeKey);
    // The list needs nothing; the create needs a valid body; everything else needs an existing connection.
    // The notifications are the workspace's: a list, like the connections'.
    const list = template === CONNECTIONS_PATH || template === `${CONNECTIONS_PATH}/test` || template === "/api/v1/crm/custom/notifications" || template === "/api/v1/analytics/connections" || template === "/api/v1/crm/custom/webhooks";
    expect(response.status, response.text).toBe(list ? (method === "GET" ? 200 : 422) : 404);
  });

  test("the operations are served as documented with a real connection too", async () => {
    const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: "http://127.0.0.1:9", token: "src-openapi" } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const route of ROUTES) {
      if (route.operationId === "deleteConnection" || route.operationId === "createConnection") continue;
      const [method = "", template = ""] = route.routeKey.split(" ");
      const path = template.replace("{id}", id).replace("{runId}", "20260101T000000000Z-unknown").replace("{preflightId}", "20260101T000000000Z-unknown").replace("{auditId}", "audit-20260101T000000000Z-unknown").replace("{recordId}", "lead-unknown").replace("{entity}", "leads").replace("{collection}", "leads").replace("{sourceUserId}", "user-unknown");
      // The owner and ROP name the manager whose records they list.
      const query = route.operationId === "listManagerRecords" ? "?user_id=user-unknown" : "";
      const body = method === "PATCH" ? { rate_limit: 3 } : method === "PUT" ? { user_id: "member-1" } : route.operationId === "testDraftConnection" ? { base_url: "http://127.0.0.1:9", token: "src-openapi" } : route.operationId === "createWebhook" ? { url: "http://127.0.0.1:9/hooks", event_types: ["run.finished"] } : undefined;
      const response = await env.api.request(method, `${path}${query}`, { token: env.owner, ...(body === undefined ? {} : { body }) });
      expectFromHandler(response, route.routeKey);
      // Nothing synced: no source user to link, no record to show.
      // A webhook's routes take an endpoint's id, and this is a connection's: none.
      const unknown = ["getSyncRun", "getPreflight", "cancelSyncRun", "getAudit", "linkManager", "unlinkManager", "getManagerRecord", "getWebhook", "deleteWebhook", "rotateWebhookSecret", "listWebhookDeliveries"];
      const expected = unknown.includes(route.operationId) ? 404 : route.successStatus;
      // The sync triggerSync started may still hold the connection's lock: an audit is then refused, as documented.
      if (route.operationId === "startAudit") expect([expected, 409], `${route.routeKey}: ${response.text}`).toContain(response.status);
      else expect(response.status, `${route.routeKey}: ${response.text}`).toBe(expected);
    }
    expect((await env.api.request("DELETE", `${CONNECTIONS_PATH}/${id}`, { token: env.owner })).status).toBe(204);
  });
});

describe("what is not documented is not served", () => {
  test.each([
    ["GET", "/api/v1/crm/custom/nothing"],
    ["GET", "/api/v1/crm/custom/connections/x/record"],
    ["GET", "/api/v1/crm/custom/connections/x/y/z"],
    ["GET", "/api/v2/crm/custom/connections"],
    ["PUT", `${CONNECTIONS_PATH}/x`],
    ["DELETE", CONNECTIONS_PATH],
    ["POST", "/api/v1/openapi.json"],
  ])("%s %s: the gateway's own 404, the handler never runs", async (method, path) => {
    const accessLines = () => env.api.logger.lines.filter((line) => line["message"] === "api request").length;
    const before = accessLines();
    const response = await env.api.request(method, path, { token: env.owner });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(GATEWAY_NOT_FOUND);
    // The handler logs one access line per request it gets: none here.
    expect(accessLines()).toBe(before);
  });
});
