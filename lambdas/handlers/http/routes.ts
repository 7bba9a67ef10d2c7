import { createConnection, deleteConnection, getConnection, listConnections, updateConnection } from "../../domain/onboarding/connection-operations";
import { parseJsonBody } from "../../domain/onboarding/connection-input";
import { getRecord, listRecords } from "../../domain/onboarding/record-operations";
import { getRun, listRuns, triggerSync } from "../../domain/onboarding/run-operations";
import { getAudit, listAudits, startAudit } from "../../domain/onboarding/audit-operations";
import { explainRecord } from "../../domain/onboarding/explain-record";
import { getPreflight, startPreflight } from "../../domain/onboarding/preflight-operations";
import { testConnection } from "../../domain/onboarding/test-connection";
import { testDraftConnection } from "../../domain/onboarding/test-draft-connection";
import { cancelRun } from "../../domain/onboarding/cancel-run";
import { setPaused } from "../../domain/onboarding/connection-schedule";
import { resetSync } from "../../domain/onboarding/reset-sync";
import { getFunnel, getRecordCounts } from "../../domain/onboarding/figures-operations";
import { listNotifications } from "../../domain/onboarding/notification-operations";
import { getQuality } from "../../domain/onboarding/quality-operations";
import { getLeadHistory } from "../../domain/onboarding/lead-history-operations";
import { listChanges } from "../../domain/onboarding/change-operations";
import { getVelocity } from "../../domain/onboarding/velocity-analytics";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, rotateWebhookSecret } from "../../domain/webhooks/webhook-operations";

import { API_PREFIX, param, recordRef, type Route } from "./route";
import { ANALYTICS_ROUTES, MANAGER_LINK_ROUTES } from "./analytics-routes";

export { API_PREFIX, type Route, type RouteRequest } from "./route";
const CONNECTIONS = `${API_PREFIX}/crm/custom/connections`;
const WEBHOOKS = `${API_PREFIX}/crm/custom/webhooks`;

/**
 * Every authenticated route: the onboarding API's (the workspace owner's only,
 * the managers' links included), then the analytics routes every role may call
 * (docs/analytics-api.md).
 */
export const ROUTES: readonly Route[] = [
  {
    routeKey: `POST ${CONNECTIONS}`,
    operationId: "createConnection",
    summary: "Register a connection to a custom CRM source API",
    successStatus: 201,
    handle: (deps, request) => createConnection(deps, request.account, parseJsonBody(request.body)),
  },
  {
    routeKey: `GET ${CONNECTIONS}`,
    operationId: "listConnections",
    summary: "List this workspace's custom connections",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listConnections(deps, request.account) }),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}`,
    operationId: "getConnection",
    summary: "Get one connection",
    successStatus: 200,
    handle: (deps, request) => getConnection(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `PATCH ${CONNECTIONS}/{id}`,
    operationId: "updateConnection",
    summary: "Change base_url, token, rate_limit or sync_since (token rotation)",
    successStatus: 200,
    handle: (deps, request) => updateConnection(deps, request.account, param(request, "id"), parseJsonBody(request.body)),
  },
  {
    routeKey: `DELETE ${CONNECTIONS}/{id}`,
    operationId: "deleteConnection",
    summary: "Delete a connection: it stops syncing",
    successStatus: 204,
    handle: (deps, request) => deleteConnection(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `POST ${CONNECTIONS}/test`,
    operationId: "testDraftConnection",
    summary: "Live request for the first page of /pipelines with a base_url and token not stored yet (the new-connection form's Test)",
    successStatus: 200,
    callsSource: true,
    handle: (deps, request) => testDraftConnection(deps, request.account, parseJsonBody(request.body)),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/test`,
    operationId: "testConnection",
    summary: "Live request for the first page of /pipelines",
    successStatus: 200,
    callsSource: true,
    handle: (deps, request) => testConnection(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/syncs`,
    operationId: "triggerSync",
    summary: "Start a sync now (or get the run already in progress)",
    successStatus: 202,
    handle: (deps, request) => triggerSync(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/syncs`,
    operationId: "listSyncRuns",
    summary: "Run summaries, newest first",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listRuns(deps, request.account, param(request, "id")) }),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/syncs/{runId}`,
    operationId: "getSyncRun",
    summary: "One run summary",
    successStatus: 200,
    handle: (deps, request) => getRun(deps, request.account, param(request, "id"), param(request, "runId")),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/audits`,
    operationId: "startAudit",
    summary: "Start an audit: read every incremental entity from sync_since, heal what incremental syncs missed (409 while a sync or audit runs)",
    successStatus: 202,
    handle: (deps, request) => startAudit(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/audits`,
    operationId: "listAudits",
    summary: "Audit summaries, newest first",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listAudits(deps, request.account, param(request, "id")) }),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/audits/{auditId}`,
    operationId: "getAudit",
    summary: "One audit: per entity what the source returned, what the store holds, what was healed and why, and what changed after the last sync",
    successStatus: 200,
    handle: (deps, request) => getAudit(deps, request.account, param(request, "id"), param(request, "auditId")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/records`,
    operationId: "countRecords",
    summary: "Stored records per collection, as counted at the end of the last run",
    successStatus: 200,
    handle: (deps, request) => getRecordCounts(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/records/{entity}`,
    operationId: "listRecords",
    summary: "What was ingested, in the canonical shape",
    successStatus: 200,
    handle: (deps, request) =>
      listRecords(deps, request.account, param(request, "id"), param(request, "entity"), request.query),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/records/{entity}/{recordId}`,
    operationId: "getRecord",
    summary: "One stored record and its lineage: which run and page first saw and last wrote it (a stage also takes ?pipeline_id=)",
    successStatus: 200,
    handle: (deps, request) =>
      getRecord(deps, recordRef(request)),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/records/{entity}/{recordId}/explain`,
    operationId: "explainRecord",
    summary: "Why a record is what the store holds, or why it is missing: a verdict and a sentence for a person",
    successStatus: 200,
    handle: (deps, request) =>
      explainRecord(deps, recordRef(request)),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/records/leads/{leadId}/history`,
    operationId: "getLeadHistory",
    summary: "A lead's stage transitions in time order, each observed by a sync or reported by the source's stage events",
    successStatus: 200,
    handle: (deps, request) => getLeadHistory(deps, request.account, param(request, "id"), param(request, "leadId")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/changes`,
    operationId: "listChanges",
    summary: "What the syncs and audits committed, in commit order across entities, from a cursor (the change feed)",
    successStatus: 200,
    handle: (deps, request) => listChanges(deps, request.account, param(request, "id"), request.query),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/preflight`,
    operationId: "startPreflight",
    summary: "Check the source against every source-side rule of the spec (the conformance kit), from the service",
    successStatus: 202,
    handle: (deps, request) => startPreflight(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/preflight/{preflightId}`,
    operationId: "getPreflight",
    summary: "A conformance report, as far as the check has got",
    successStatus: 200,
    handle: (deps, request) => getPreflight(deps, request.account, param(request, "id"), param(request, "preflightId")),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/pause`,
    operationId: "pauseConnection",
    summary: "Pause the connection's schedule (a manual sync still runs)",
    successStatus: 200,
    handle: (deps, request) => setPaused(deps, request.account, param(request, "id"), true),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/resume`,
    operationId: "resumeConnection",
    summary: "Resume the connection's schedule",
    successStatus: 200,
    handle: (deps, request) => setPaused(deps, request.account, param(request, "id"), false),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/syncs/{runId}/cancel`,
    operationId: "cancelSyncRun",
    summary: "Cancel a running sync: unfinished entities fail, the lock is released, the execution stopped",
    successStatus: 200,
    handle: (deps, request) => cancelRun(deps, request.account, param(request, "id"), param(request, "runId")),
  },
  {
    routeKey: `POST ${CONNECTIONS}/{id}/reset`,
    operationId: "resetSync",
    summary: "Watermarks back to sync_since (one entity or every incremental one), then optionally a sync",
    successStatus: 200,
    handle: (deps, request) => resetSync(deps, request.account, param(request, "id"), request.body),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/analytics/funnel`,
    operationId: "getFunnel",
    summary: "The funnel per pipeline, as computed from the canonical records at the end of the last run",
    successStatus: 200,
    handle: (deps, request) => getFunnel(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/analytics/velocity`,
    operationId: "getVelocity",
    summary: "Pipeline velocity from the stage history: per pipeline and month, conversion to the next stage and to won, time in stage, and the open leads waiting longest",
    successStatus: 200,
    handle: (deps, request) => getVelocity(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${CONNECTIONS}/{id}/quality`,
    operationId: "getQuality",
    summary: "Data quality: per entity, the silent rules of the spec its records hit over the last runs, with each rule's fix",
    successStatus: 200,
    handle: (deps, request) => getQuality(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${API_PREFIX}/crm/custom/notifications`,
    operationId: "listNotifications",
    summary: "The workspace's last 100 notifications (sync run finished, audit finished, connection stale), newest first",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listNotifications(deps, request.account) }),
  },
  {
    routeKey: `POST ${WEBHOOKS}`,
    operationId: "createWebhook",
    summary: "Register a webhook endpoint for the workspace's events; the answer shows its signing secret, this once",
    successStatus: 201,
    handle: (deps, request) => createWebhook(deps, request.account, parseJsonBody(request.body)),
  },
  {
    routeKey: `GET ${WEBHOOKS}`,
    operationId: "listWebhooks",
    summary: "The workspace's webhook endpoints (never their secrets)",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listWebhooks(deps, request.account) }),
  },
  {
    routeKey: `GET ${WEBHOOKS}/{id}`,
    operationId: "getWebhook",
    summary: "One webhook endpoint (never its secret)",
    successStatus: 200,
    handle: (deps, request) => getWebhook(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `DELETE ${WEBHOOKS}/{id}`,
    operationId: "deleteWebhook",
    summary: "Delete a webhook endpoint: nothing more is sent to it",
    successStatus: 204,
    handle: (deps, request) => deleteWebhook(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `POST ${WEBHOOKS}/{id}/rotate`,
    operationId: "rotateWebhookSecret",
    summary: "A new signing secret, shown this once; the old one signs nothing more",
    successStatus: 200,
    handle: (deps, request) => rotateWebhookSecret(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `GET ${WEBHOOKS}/{id}/deliveries`,
    operationId: "listWebhookDeliveries",
    summary: "The endpoint's last delivery attempts, newest first: event, status or error, attempt, next attempt",
    successStatus: 200,
    handle: async (deps, request) => ({ data: await listDeliveries(deps, request.account, param(request, "id")) }),
  },
  ...MANAGER_LINK_ROUTES,
  ...ANALYTICS_ROUTES,
];

/** The OpenAPI document: public, like any API description. */
export const OPENAPI_ROUTE_KEY = `GET ${API_PREFIX}/openapi.json`;
/** The source API's contract (what the customer's developers implement), as OpenAPI 3.1: public too. */
export const SOURCE_API_OPENAPI_ROUTE_KEY = `GET ${API_PREFIX}/source-api/openapi.json`;
/** Routes without the JWT authorizer: API descriptions only, nothing of any workspace. */
export const PUBLIC_ROUTE_KEYS: readonly string[] = [OPENAPI_ROUTE_KEY, SOURCE_API_OPENAPI_ROUTE_KEY];
