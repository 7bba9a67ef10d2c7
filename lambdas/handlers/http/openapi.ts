import { toJsonSchema, toJsonSchemaDefs } from "@valibot/to-json-schema";
import { COLLECTIONS } from "../../domain/core/entities";
import { patternSourceOf } from "../../domain/core/portable-patterns";
import { RunSummarySchema } from "../../domain/core/run-summary";
import { RecordWithLineageSchema } from "../../domain/core/record-lineage";
import { NotificationListSchema } from "../../domain/core/service-events";
import { CreateConnectionSchema, UpdateConnectionSchema } from "../../domain/onboarding/connection-input";
import { ConnectionListSchema, ConnectionOverviewSchema } from "../../domain/onboarding/connection-overview";
import { ConnectionResourceSchema } from "../../domain/onboarding/connection-resource";
import { RECORD_ORDERS, RECORDS_DEFAULT_LIMIT, RECORDS_MAX_LIMIT, RecordsPageSchema } from "../../domain/onboarding/record-operations";
import { ResetResultSchema, ResetSyncSchema } from "../../domain/onboarding/reset-sync";
import { RunListSchema, RunStartedSchema } from "../../domain/onboarding/run-operations";
import { ConnectionTestResultSchema } from "../../domain/onboarding/test-connection";
import { DraftTestSchema } from "../../domain/onboarding/test-draft-connection";
import { FunnelSchema } from "../../domain/figures/funnel";
import { RecordCountsSchema } from "../../domain/figures/connection-figures";
import { QualitySchema } from "../../domain/onboarding/quality-operations";
import { AuditListSchema, AuditStartedSchema } from "../../domain/onboarding/audit-operations";
import { EXPLAIN_VERDICTS, ExplanationSchema } from "../../domain/onboarding/explain-record";
import { AuditSummarySchema } from "../../domain/core/audit-summary";
import { errorStatusesByName, RETRY_AFTER_SECONDS } from "./error-status";
import { LeadHistorySchema } from "../../domain/core/lead-history";
import { ChangesPageSchema } from "../../domain/core/change-feed";
import { VelocitySchema } from "../../domain/onboarding/velocity-analytics";
import { CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT } from "../../domain/onboarding/change-operations";
import { PreflightRunSchema } from "../../domain/preflight/preflight-run";
import { API_PREFIX, ROUTES, type Route } from "./routes";
import { AnalyticsConnectionListSchema } from "../../domain/analytics/analytics-operations";
import { ManagerFiguresListSchema } from "../../domain/analytics/manager-figures";
import { ManagerEntrySchema, ManagerListSchema, SetManagerLinkSchema } from "../../domain/analytics/manager-link-operations";
import { MANAGER_COLLECTIONS } from "../../domain/analytics/manager-aggregates";
import { CreateWebhookSchema, DeliveryAttemptListSchema, WebhookEndpointSchema, WebhookListSchema, WebhookWithSecretSchema } from "../../domain/webhooks/webhook-endpoint";
import { WEBHOOK_DESCRIPTION_MAX_LENGTH } from "../../domain/webhooks/webhook-limits";
import * as v from "valibot";
import { MAX_STAGE_EVENT_TYPE_LENGTH } from "../../domain/core/stage-event-type";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const content = (schema: object) => ({ "application/json": { schema } });

/** A regex action's pattern as it was written (RegExp's own source escapes some characters in a way not every engine reads). */
const publishedPattern = ({ valibotAction, jsonSchema }: { valibotAction: { type: string }; jsonSchema: object }) =>
  valibotAction.type === "regex" ? { ...jsonSchema, pattern: patternSourceOf((valibotAction as unknown as { requirement: RegExp }).requirement) } : undefined;

/**
 * Request bodies come from the valibot schemas the handlers validate with: one
 * description of each. The converter drops what JSON Schema cannot say from a
 * transform or a custom check; those few facts are added back here.
 */
const bodySchema = (schema: Parameters<typeof toJsonSchema>[0], options: { atLeastOneField?: boolean } = {}) => {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { errorMode: "ignore", overrideAction: publishedPattern }) as {
    $schema?: string;
    properties?: Record<string, Record<string, unknown>>;
  };
  const properties = rest.properties ?? {};
  if (properties["base_url"]) properties["base_url"] = { ...properties["base_url"], format: "uri", description: "Absolute http(s) URL of the source API root; trailing slash stripped; loopback, private and metadata addresses refused" };
  if (properties["url"]) properties["url"] = { ...properties["url"], format: "uri", description: "Absolute https URL of the receiver (http only where loopback is allowed: the local runtime); loopback, private and metadata addresses refused" };
  if (properties["description"]) properties["description"] = { ...properties["description"], maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH };
  if (properties["sync_since"]) properties["sync_since"] = { ...properties["sync_since"], format: "date-time" };
  // JSON Schema's maxLength counts code points, as the setting's own check does (valibot's maxLength counts UTF-16 units).
  if (properties["stage_event_type"]) properties["stage_event_type"] = { ...properties["stage_event_type"], maxLength: MAX_STAGE_EVENT_TYPE_LENGTH, description: "The /events type that records stage moves, compared exactly (case included); null: any type containing \"stage\", any case" };
  return { ...rest, ...(options.atLeastOneField ? { minProperties: 1 } : {}) };
};

/**
 * Response bodies come from the valibot schemas their types are inferred from:
 * one description of each shape, so the document cannot drift from the code.
 * A schema used inside another (RunStarted in ResetResult, Connection in its
 * list) becomes a $ref to its component.
 */
export const RESPONSE_SCHEMAS = {
  Connection: ConnectionResourceSchema,
  ConnectionOverview: ConnectionOverviewSchema,
  ConnectionList: ConnectionListSchema,
  ConnectionTest: ConnectionTestResultSchema,
  RunStarted: RunStartedSchema,
  RunSummary: RunSummarySchema,
  RunList: RunListSchema,
  RecordsPage: RecordsPageSchema,
  RecordWithLineage: RecordWithLineageSchema,
  NotificationList: NotificationListSchema,
  ResetResult: ResetResultSchema,
  // The kit's report plus the run's own state: the schema the preflight store parses with.
  PreflightRun: PreflightRunSchema,
  Funnel: FunnelSchema,
  RecordCounts: RecordCountsSchema,
  Quality: QualitySchema,
  AuditStarted: AuditStartedSchema,
  AuditSummary: AuditSummarySchema,
  AuditList: AuditListSchema,
  Explanation: ExplanationSchema,
  ManagerEntry: ManagerEntrySchema,
  ManagerList: ManagerListSchema,
  AnalyticsConnectionList: AnalyticsConnectionListSchema,
  ManagerFigures: ManagerFiguresListSchema,
  ManagerRecord: v.object({ record: v.record(v.string(), v.unknown()) }),
  LeadHistory: LeadHistorySchema,
  ChangesPage: ChangesPageSchema,
  Velocity: VelocitySchema,
  Webhook: WebhookEndpointSchema,
  WebhookWithSecret: WebhookWithSecretSchema,
  WebhookList: WebhookListSchema,
  WebhookDeliveries: DeliveryAttemptListSchema,
};

function responseComponents(): Record<string, object> {
  return toJsonSchemaDefs(RESPONSE_SCHEMAS, {
    errorMode: "ignore",
    overrideAction: publishedPattern,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  });
}

const ERROR_RESPONSES: Record<string, { description: string; headers?: Record<string, unknown>; schema?: object }> = {
  "400": { description: "The body is not a JSON object, or a path holds a malformed percent-escape" },
  // A missing or invalid JWT is refused by API Gateway's authorizer before the handler runs, in the gateway's own shape.
  "401": { description: "No valid owner session token", schema: { anyOf: [ref("Error"), ref("GatewayError")] } },
  "403": { description: "The caller is not the workspace owner (ROP, MOP)" },
  "404": { description: "Unknown id, another workspace's, or one too long to be an id (over 1024 UTF-8 bytes)" },
  "409": { description: "Not possible in the resource's state (cancelling a run that has finished; an audit or a sync while an audit or a sync of the connection runs: the body names it)" },
  "422": { description: "A field breaks a rule: the body names the field and the rule" },
  "503": {
    description: "Briefly unavailable (the store throttled or busy, or the sync queue; for the test call, the service's own store stayed busy through its retries, so no request reached the CRM); try again after Retry-After",
    headers: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", const: RETRY_AFTER_SECONDS } } },
  },
};

/** Each operation's group in the document (its tag), by operationId: a route without one fails the lint test. */
const TAGS = {
  Connections: ["createConnection", "listConnections", "getConnection", "updateConnection", "deleteConnection", "testDraftConnection", "testConnection", "pauseConnection", "resumeConnection"],
  Syncs: ["triggerSync", "listSyncRuns", "getSyncRun", "cancelSyncRun", "resetSync"],
  Audits: ["startAudit", "listAudits", "getAudit"],
  Records: ["countRecords", "listRecords", "getRecord", "explainRecord", "getLeadHistory", "listChanges"],
  Preflight: ["startPreflight", "getPreflight"],
  Insights: ["getFunnel", "getQuality", "getVelocity"],
  Notifications: ["listNotifications"],
  Webhooks: ["createWebhook", "listWebhooks", "getWebhook", "deleteWebhook", "rotateWebhookSecret", "listWebhookDeliveries"],
  Managers: ["listManagers", "linkManager", "unlinkManager"],
  Analytics: ["listAnalyticsConnections", "getManagerFigures", "listManagerRecords", "getManagerRecord"],
} as const;
const TAG_DESCRIPTIONS: Record<keyof typeof TAGS, string> = {
  Connections: "A workspace's connections to its custom CRM source API: register, read, change, test, pause, delete",
  Syncs: "Sync runs of a connection: start one, read its summary, cancel it, reset the watermarks",
  Audits: "Audits that compare the source with the stored records and heal the difference",
  Records: "The canonical records a connection's syncs have stored, and why a record is as it is",
  Preflight: "The conformance check of the connection's source API, run from the service",
  Insights: "Analytics and data quality over a connection's records",
  Notifications: "What the service told the workspace: runs that failed, connections gone stale",
  Webhooks: "Signed deliveries of the workspace's events to the owner's endpoints, retried with backoff",
  Managers: "The owner's links between a connection's CRM users and the workspace's members",
  Analytics: "Per-manager figures, records and coaching signals, for every role, scoped by who asks",
};
const tagOf = (operationId: string): string | undefined =>
  Object.entries(TAGS).find(([, operations]) => (operations as readonly string[]).includes(operationId))?.[0];

function responsesOf(route: Route): Record<string, unknown> {
  const success: Record<string, unknown> = {
    createConnection: { description: "Created", content: content(ref("Connection")) },
    listConnections: { description: "This workspace's connections, each with its last run and open findings", content: content(ref("ConnectionList")) },
    getConnection: { description: "The connection", content: content(ref("Connection")) },
    updateConnection: { description: "The updated connection", content: content(ref("Connection")) },
    deleteConnection: { description: "Deleted; the connection stops syncing" },
    testConnection: { description: "What the live request found", content: content(ref("ConnectionTest")) },
    testDraftConnection: { description: "What the live request found; nothing is stored", content: content(ref("ConnectionTest")) },
    triggerSync: { description: "The run started, or the one in progress", content: content(ref("RunStarted")) },
    listSyncRuns: { description: "Run summaries, newest first", content: content(ref("RunList")) },
    getSyncRun: { description: "The run summary", content: content(ref("RunSummary")) },
    listRecords: { description: "A page of canonical records", content: content(ref("RecordsPage")) },
    listNotifications: { description: "The latest notifications of this workspace, newest first", content: content(ref("NotificationList")) },
    getRecord: { description: "The stored record and its lineage; both null when no record is stored under that id", content: content(ref("RecordWithLineage")) },
    startPreflight: { description: "The check started; read it back with getPreflight", content: content(ref("PreflightRun")) },
    getPreflight: { description: "The conformance report, as far as the check has got", content: content(ref("PreflightRun")) },
    pauseConnection: { description: "The connection, paused", content: content(ref("Connection")) },
    resumeConnection: { description: "The connection, resumed", content: content(ref("Connection")) },
    cancelSyncRun: { description: "The cancelled run's summary (or the run's own outcome if it finished first)", content: content(ref("RunSummary")) },
    resetSync: { description: "What was reset, and the run started if asked", content: content(ref("ResetResult")) },
    getQuality: { description: "Per entity and rule: the count in the last successful run, the counts over the last 10 finished runs, sample ids and the rule's fix", content: content(ref("Quality")) },
    startAudit: { description: "The audit started; read it back with getAudit", content: content(ref("AuditStarted")) },
    listAudits: { description: "Audit summaries, newest first", content: content(ref("AuditList")) },
    explainRecord: { description: `The verdict: ${EXPLAIN_VERDICTS.join(", ")} (never-returned and a record ahead the store lacks: present false, never a bare 404)`, content: content(ref("Explanation")) },
    getAudit: { description: "The audit: per entity the records the source returned, the store holds, healed by cause, changed after the last sync (ahead of the watermark: left to the next sync, not healed), absent at the source", content: content(ref("AuditSummary")) },
    getFunnel: { description: "Per pipeline, as computed at the end of the last run: leads per stage in stage order, leads that reached each stage and the conversion to the next and to won, won, lost, revenue won, top loss reasons, unresolved won/lost, overdue tasks, connected calls", content: content(ref("Funnel")) },
    countRecords: { description: "Stored records per collection, as counted at the end of the last run", content: content(ref("RecordCounts")) },
    getLeadHistory: { description: "The lead's transitions in time order (none for a lead never stored)", content: content(ref("LeadHistory")) },
    listChanges: { description: "The changes committed after the cursor, oldest first, and the cursor to read on from", content: content(ref("ChangesPage")) },
    getVelocity: { description: "Per pipeline and month: each stage's entries, conversion to the next stage and to won, median and 90th-percentile time in stage; the open leads waiting longest", content: content(ref("Velocity")) },
    listManagers: { description: "The connection's source users with their links and a summary of the last 30 days", content: content(ref("ManagerList")) },
    linkManager: { description: "The source user with its link as it now is", content: content(ref("ManagerEntry")) },
    unlinkManager: { description: "The source user, unlinked by the owner", content: content(ref("ManagerEntry")) },
    listAnalyticsConnections: { description: "The workspace's connections, and the caller's link on each", content: content(ref("AnalyticsConnectionList")) },
    getManagerFigures: { description: "One row per manager (a MOP: theirs) with the period's figures and coaching signals", content: content(ref("ManagerFigures")) },
    listManagerRecords: { description: "A page of one manager's records", content: content(ref("RecordsPage")) },
    createWebhook: { description: "Created; `secret` is shown this once", content: content(ref("WebhookWithSecret")) },
    listWebhooks: { description: "The workspace's endpoints", content: content(ref("WebhookList")) },
    getWebhook: { description: "The endpoint", content: content(ref("Webhook")) },
    deleteWebhook: { description: "Deleted; nothing more is sent to it" },
    rotateWebhookSecret: { description: "The endpoint with its new `secret`, shown this once", content: content(ref("WebhookWithSecret")) },
    listWebhookDeliveries: { description: "The last attempts, newest first", content: content(ref("WebhookDeliveries")) },
    getManagerRecord: { description: "The record, when the caller may see it", content: content(ref("ManagerRecord")) },
  };
  const errors = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { description, headers, schema }]) => [
      status,
      { description, ...(headers ? { headers } : {}), content: content(schema ?? ref("Error")) },
    ]),
  );
  if (route.access === "member") {
    errors["403"] = { description: "A MOP whom the owner has not linked to a source user of the connection (the message says so)", content: content(ref("Error")) };
  }
  // Only the change feed's cursor can be too old: the commits after it may be gone.
  const gone = route.operationId === "listChanges" ? { "410": { description: "The cursor is older than the feed keeps: re-read the records route, then follow the feed without a cursor", content: content(ref("Error")) } } : {};
  return { [String(route.successStatus)]: success[route.operationId], ...errors, ...gone };
}

/** What an operation answers on success, in a sentence (its description in the document). */
function descriptionOf(route: Route, responses: Record<string, unknown>): string {
  const answer = (responses[String(route.successStatus)] as { description?: string } | undefined)?.description ?? "";
  const who = route.access === "member" ? "Every role: the owner and ROP see every manager, a MOP their own" : "The workspace owner's only";
  return `${route.summary}. ${who}. Answers ${route.successStatus}: ${answer.charAt(0).toLowerCase()}${answer.slice(1)}.`;
}

function operationOf(route: Route): Record<string, unknown> {
  const [, path = ""] = route.routeKey.split(" ");
  const parameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: name === "entity" ? { type: "string", enum: [...COLLECTIONS] } : name === "collection" ? { type: "string", enum: [...MANAGER_COLLECTIONS] } : { type: "string" },
  }));
  if (route.operationId === "getManagerFigures") {
    for (const name of ["from", "to"]) {
      parameters.push({ name, in: "query", required: false, schema: { type: "string", format: "date", description: name === "to" ? "Last UTC day of the period, included; default today" : "First UTC day of the period, included; default 29 days before to" } as never });
    }
  }
  if (route.operationId === "listManagerRecords") {
    parameters.push(
      { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: RECORDS_MAX_LIMIT, default: RECORDS_DEFAULT_LIMIT } as never },
      { name: "cursor", in: "query", required: false, schema: { type: "string", minLength: 1, description: "next_cursor of the previous page; an empty one is refused (422)" } as never },
      { name: "user_id", in: "query", required: false, schema: { type: "string", minLength: 1, description: "The owner and ROP: the source user whose records to list (a MOP gets their own)" } as never },
      { name: "unassigned", in: "query", required: false, schema: { type: "string", enum: ["true"], description: "The owner and ROP: the records with no or an unknown responsible user" } as never },
    );
  }
  if (route.operationId === "getRecord" || route.operationId === "explainRecord") {
    // An empty value is refused (422), as a missing one is for a stage.
    parameters.push({ name: "pipeline_id", in: "query", required: false, schema: { type: "string", minLength: 1, description: "Required for a stage: the pipeline it belongs to" } as never });
  }
  if (route.operationId === "listChanges") {
    parameters.push(
      { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: CHANGES_MAX_LIMIT, default: CHANGES_DEFAULT_LIMIT } as never },
      { name: "cursor", in: "query", required: false, schema: { type: "string", minLength: 1, description: "next_cursor of the previous read; none: from the oldest change kept" } as never },
    );
  }
  if (route.operationId === "listRecords") {
    parameters.push(
      { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: RECORDS_MAX_LIMIT, default: RECORDS_DEFAULT_LIMIT } as never },
      { name: "cursor", in: "query", required: false, schema: { type: "string", minLength: 1, description: "next_cursor of the previous page; an empty one is refused (422)" } as never },
      {
        name: "order",
        in: "query",
        required: false,
        // key: the store's key order; newest: by updated_at (else created_at) newest first, records with neither last.
        schema: { type: "string", enum: [...RECORD_ORDERS], default: "key" } as never,
      },
    );
  }
  const body =
    route.operationId === "createConnection"
      ? bodySchema(CreateConnectionSchema)
      : route.operationId === "updateConnection"
        ? bodySchema(UpdateConnectionSchema, { atLeastOneField: true })
        : route.operationId === "testDraftConnection"
          ? bodySchema(DraftTestSchema)
          : route.operationId === "resetSync"
          ? bodySchema(ResetSyncSchema)
          : route.operationId === "linkManager"
            ? bodySchema(SetManagerLinkSchema)
            : route.operationId === "createWebhook"
              ? bodySchema(CreateWebhookSchema)
              : undefined;
  const responses = responsesOf(route);
  const tag = tagOf(route.operationId);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: descriptionOf(route, responses),
    ...(tag === undefined ? {} : { tags: [tag] }),
    security: [{ ownerSession: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: { required: route.operationId !== "resetSync", content: content(body) } } : {}),
    responses,
  };
}

/** OpenAPI 3.1 for the onboarding API, built from the route table the handler serves. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const [method = "", path = ""] = route.routeKey.split(" ");
    (paths[path] ??= {})[method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Custom CRM integration: onboarding API",
      version: "1.0.0",
      description: `Register and operate connections to a customer's custom CRM source API. Base path ${API_PREFIX}. Only the workspace owner may call the routes under ${API_PREFIX}/crm/custom; every role may read ${API_PREFIX}/analytics, scoped by who asks.`,
      contact: { name: "The CRM integration service's team (docs/onboarding-api.md)" },
      license: { name: "Proprietary: for the service's workspaces", identifier: "LicenseRef-Proprietary" },
    },
    // The origin that serves this document (the console's in AWS, the local runtime's on one machine): every path
    // already starts with the base path.
    servers: [
      {
        url: "{origin}",
        description: "The origin this document is served from",
        variables: { origin: { default: "http://127.0.0.1:3000", description: "The console's origin in AWS (ConsoleUrl), or the local runtime's" } },
      },
    ],
    tags: Object.keys(TAGS).map((name) => ({ name, description: TAG_DESCRIPTIONS[name as keyof typeof TAGS] })),
    paths,
    components: {
      securitySchemes: {
        ownerSession: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A workspace session token (claims business_account_id, sub, role; email optional): the owner's for the onboarding routes, any role's for the analytics routes" },
      },
      schemas: {
        ...responseComponents(),
        GatewayError: {
          type: "object",
          description: "API Gateway's own answer (its JWT authorizer refused the request)",
          required: ["message"],
          properties: { message: { type: "string" } },
        },
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: { type: "string" },
                message: { type: "string" },
                field: { type: "string", description: "A 422's first broken field" },
                rule: { type: "string", description: "The rule it breaks" },
                errors: {
                  type: "array",
                  description: "A 422's every broken field, each with its first broken rule (the first is field and rule), so a form can show them all at once",
                  items: { type: "object", required: ["field", "rule"], properties: { field: { type: "string" }, rule: { type: "string" } } },
                },
              },
            },
          },
        },
      },
    },
    "x-error-statuses": errorStatusesByName(),
  };
}
