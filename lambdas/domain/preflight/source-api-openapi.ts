/**
 * The source API's contract as an OpenAPI 3.1 document, for the customer's
 * developers. Resource schemas come from the valibot schemas the sync
 * validates with (lambdas/domain/records/*); what JSON Schema cannot learn from a
 * transform or a custom check (an id's length, a timestamp's forms, a call's
 * lead_id-or-contact_id) is added here, once. Served later by the onboarding
 * API; buildSourceApiOpenApi() is the one place it is made.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { STAGE_KINDS, SYNC_ENTITIES, type SyncEntity } from "../core/entities";
import { patternSourceOf } from "../core/portable-patterns";
import { MAX_RETRIES, PAGE_SIZE, TEXT_LIMITS } from "../core/limits";
import { entityDefinition } from "../source-contract/entity-catalog";
import { customFieldsMap, customFieldsPairs } from "../records/fields/custom-fields";
import { recordId } from "../records/fields/text";
import { timestamp, TIMESTAMP } from "../records/fields/timestamp";

type JsonObject = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema } });

/** Resource names in components, per endpoint. */
const RESOURCE: Record<SyncEntity, string> = {
  pipelines: "Pipeline",
  users: "User",
  contacts: "Contact",
  leads: "Lead",
  tasks: "Task",
  calls: "Call",
  events: "Event",
};

const TIMESTAMP_SCHEMA = {
  type: "string",
  pattern: TIMESTAMP.source,
  description:
    "YYYY-MM-DD, or YYYY-MM-DD then T or a space then HH:MM:SS[.fraction] with Z, +HH:MM, -HH:MM or no zone (read as UTC). An unparseable value is stored as null.",
};
const caseInsensitive = (word: string) => [...word].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join("");

/** The JSON Schema of one resource, from the sync's own valibot schema plus the facts it cannot carry. */
function resourceSchema(entity: SyncEntity): JsonObject {
  const { $schema: _dialect, ...schema } = toJsonSchema(entityDefinition(entity).schema as v.GenericSchema, {
    target: "draft-2020-12",
    errorMode: "ignore",
    // A pattern as it was written (RegExp's own source escapes some characters in a way not every engine reads).
    overrideAction: ({ valibotAction, jsonSchema }) =>
      valibotAction.type === "regex" ? { ...jsonSchema, pattern: patternSourceOf((valibotAction as unknown as { requirement: RegExp }).requirement) } : undefined,
    // Pipes are not offered to overrideSchema, so their first schema stands for them.
    overrideSchema: ({ valibotSchema }) => {
      if (valibotSchema === recordId.pipe[0]) return { type: "string", minLength: 1, maxLength: TEXT_LIMITS.id, description: "Stable and unique per connection; over-length fails the page" };
      if (valibotSchema === timestamp.pipe[0]) return { anyOf: [ref("Timestamp"), { type: "null" }] };
      if (valibotSchema === customFieldsMap.pipe[0] || valibotSchema === customFieldsPairs.pipe[0]) {
        return { type: ["object", "null"], description: "Flat map of string keys to any JSON value; anything but a non-empty object is stored as null" };
      }
      return undefined;
    },
  }) as JsonObject & { properties: Record<string, JsonObject>; required?: string[] };
  const properties = schema.properties;
  const required = new Set(schema.required ?? []);
  if (entityDefinition(entity).incremental && entity !== "events") {
    required.add("updated_at");
    properties["updated_at"] = { ...ref("Timestamp"), description: "Drives the watermark: present, parseable, and advanced on every modification" };
  }
  if (entity === "pipelines") {
    const stage = (properties["stages"] as { items: { properties: Record<string, JsonObject> } }).items;
    stage.properties["kind"] = { type: "string", pattern: `^(${STAGE_KINDS.map(caseInsensitive).join("|")})$`, description: "open, won or lost, any case; anything else fails the page" };
  }
  if (entity === "leads") properties["contact_ids"] = { type: ["array", "null"], items: { type: "string" }, description: "Only the first element is kept" };
  if (entity === "calls") {
    properties["direction"] = { description: "in or out; anything else is stored as out", enum: ["in", "out", null] };
    Object.assign(schema, { anyOf: ["lead_id", "contact_id"].map((key) => ({ required: [key], properties: { [key]: { type: "string", minLength: 1 } } })) });
  }
  if (entity === "events") {
    for (const key of ["value_before", "value_after"]) properties[key] = { description: "Scalar, object, array or null; omit when there is no prior state" };
    properties["created_at"] = { anyOf: [ref("Timestamp"), { type: "null" }], description: "When the event occurred; the watermark's fallback" };
    properties["updated_at"] = { anyOf: [ref("Timestamp"), { type: "null" }], description: "Compared for updated_since when sent, else created_at" };
  }
  return { ...schema, required: [...required] };
}

function pageSchema(entity: SyncEntity): JsonObject {
  return {
    type: "object",
    required: ["data", "has_more"],
    properties: {
      data: { type: "array", maxItems: PAGE_SIZE, items: ref(RESOURCE[entity]) },
      has_more: { type: "boolean", description: "true only when a later page holds a record; false on the last page" },
      page: { type: "integer", description: "Optional echo; ignored" },
      limit: { type: "integer", description: "Optional echo; ignored" },
    },
  };
}

function operation(entity: SyncEntity): JsonObject {
  const definition = entityDefinition(entity);
  const error = (description: string) => ({ description, content: json(ref("Error")) });
  const parameters: JsonObject[] = [
    { name: "limit", in: "query", required: true, schema: { type: "integer", minimum: 1, maximum: PAGE_SIZE }, description: `Always ${PAGE_SIZE} from the service; the source returns up to this many records` },
    { name: "page", in: "query", required: true, schema: { type: "integer", minimum: 1 }, description: "1-based; requested sequentially while has_more is true" },
  ];
  if (definition.incremental) {
    parameters.push({
      name: "updated_since",
      in: "query",
      required: false,
      schema: { type: "string", format: "date-time" },
      description: "ISO-8601 with an offset (Z, +HH:MM or -HH:MM, all to be honoured). Return only records whose updated_at (events: updated_at, else created_at) is >= this instant, ascending by it within and across pages",
    });
  }
  const incremental = definition.incremental
    ? "Incremental: only records changed since updated_since, oldest first."
    : "A full list on every sync: updated_since is not sent.";
  const presence = definition.required ? "Every source implements it." : "A source may leave it out and answer 404: the entity is skipped.";
  return {
    operationId: `list${RESOURCE[entity]}s`,
    summary: `${definition.required ? "Required" : "Optional"}: ${entity}`,
    description: `Pages of ${entity}, ${PAGE_SIZE} at most, in the envelope {data, has_more}. ${incremental} ${presence}`,
    tags: [definition.required ? "Required endpoints" : "Optional endpoints"],
    parameters,
    responses: {
      "200": { description: "A page; an empty result is 200 with data [] and has_more false, never 404", content: json(ref(`${RESOURCE[entity]}Page`)) },
      "401": error("Missing or wrong token (a one-character change must be a 401); fails the whole sync"),
      "404": error(definition.required ? "Not allowed: a required endpoint must exist" : "Not implemented: the entity is skipped cleanly"),
      "429": {
        description: `Throttled; retried up to ${MAX_RETRIES} times honouring Retry-After`,
        headers: { "Retry-After": { description: "Whole seconds to wait", schema: { type: "integer", minimum: 0 } } },
        content: json(ref("Error")),
      },
      "5XX": error("502, 503 or 504 for a transient failure: retried with backoff"),
      default: error("Any other status fails the entity at once"),
    },
  };
}

export function buildSourceApiOpenApi(): JsonObject {
  const schemas: Record<string, unknown> = {
    Timestamp: TIMESTAMP_SCHEMA,
    Error: { type: "object", required: ["error"], properties: { error: { type: "string", description: "What went wrong; the first 300 characters are kept" } } },
  };
  for (const entity of SYNC_ENTITIES) {
    schemas[RESOURCE[entity]] = resourceSchema(entity);
    schemas[`${RESOURCE[entity]}Page`] = pageSchema(entity);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "CRM source API (implemented by the customer)",
      version: "1.0",
      description: "The read-only pull API a customer's CRM exposes to the analytics service. Check an implementation with `npx crm-preflight <base_url>`; see docs/source-api.md.",
      contact: { name: "The CRM integration service's team (docs/source-api.md)" },
      license: { name: "Proprietary: for the service's workspaces and their source API's developers", identifier: "LicenseRef-Proprietary" },
    },
    tags: [
      { name: "Required endpoints", description: "The four endpoints every source implements: pipelines (with their stages), users, contacts, leads" },
      { name: "Optional endpoints", description: "Tasks, calls and events: a 404 means not implemented, and the entity is skipped" },
    ],
    servers: [{ url: "{base_url}", variables: { base_url: { default: "https://crm.example.com/api/v1", description: "The versioned root of the source API" } } }],
    security: [{ sourceToken: [] }],
    paths: Object.fromEntries(SYNC_ENTITIES.map((entity) => [entityDefinition(entity).path, { get: operation(entity) }])),
    components: {
      securitySchemes: { sourceToken: { type: "http", scheme: "bearer", description: "A long-lived read-only token issued by the customer developer" } },
      schemas,
    },
  };
}
