import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv8/dist/2020";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { SYNC_ENTITIES } from "../../../lambdas/domain/core/entities";
import { PAGE_SIZE } from "../../../lambdas/domain/core/limits";
import { buildSourceApiOpenApi } from "../../../lambdas/domain/preflight/source-api-openapi";
import { callRecord, contactRecord, eventRecord, leadRecord, pipelineRecord, stageRecord, userRecord } from "../../builders/source-records";

/**
 * The source API's OpenAPI 3.1 document: valid by a real OpenAPI validator,
 * and true to the reference source: every answer it gives validates against
 * the document's schemas (ajv, JSON Schema 2020-12, the dialect of 3.1).
 */

const doc = buildSourceApiOpenApi() as any;
const DOC_ID = "https://source-api.invalid/openapi.json";

function validatorFor(schemaName: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addKeyword("components"); // the document's top level, so that its #/components/... refs resolve
  ajv.addKeyword("openapi");
  for (const key of ["info", "servers", "security", "tags", "paths"]) ajv.addKeyword(key);
  ajv.addSchema({ $id: DOC_ID, ...doc });
  return ajv.getSchema(`${DOC_ID}#/components/schemas/${schemaName}`) ?? ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${schemaName}` });
}

describe("the document", () => {
  test("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate(doc);
    expect(result, JSON.stringify(result.errors)).toMatchObject({ valid: true });
    expect(doc.openapi).toBe("3.1.0");
  });

  test("the validator is real: a broken copy is refused", async () => {
    const broken = structuredClone(doc);
    broken.paths["/leads"].get.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  test("the seven endpoints, GET only; limit and page on each, updated_since on the five incremental ones", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(SYNC_ENTITIES.map((e) => `/${e}`).sort());
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(Object.keys(item)).toEqual(["get"]);
      const names = item.get.parameters.map((p: any) => p.name);
      expect(names, path).toEqual(["/pipelines", "/users"].includes(path) ? ["limit", "page"] : ["limit", "page", "updated_since"]);
      expect(item.get.parameters[0].schema.maximum).toBe(PAGE_SIZE);
    }
  });
});

describe("built from the sync's own schemas: the document accepts what the sync accepts and refuses what it refuses", () => {
  test.each([
    ["Pipeline", pipelineRecord(), true],
    ["Pipeline", pipelineRecord({ stages: undefined }), false],
    ["Pipeline", pipelineRecord({ sort: 1.5 }), false],
    ["Pipeline", pipelineRecord({ stages: [stageRecord({ kind: "closed" })] }), false],
    ["Pipeline", pipelineRecord({ stages: [stageRecord({ kind: "WON" })] }), true],
    ["User", userRecord(), true],
    ["User", userRecord({ id: "x".repeat(256) }), false],
    ["Contact", contactRecord(), true],
    ["Lead", leadRecord(), true],
    ["Lead", leadRecord({ price: "1200.50" }), true],
    ["Lead", leadRecord({ price: "abc" }), false],
    ["Lead", leadRecord({ updated_at: undefined }), false],
    ["Call", callRecord(), true],
    ["Call", callRecord({ lead_id: null, contact_id: null }), false],
    ["Call", callRecord({ duration_seconds: "95" }), false],
    ["Event", eventRecord(), true],
    ["Event", eventRecord({ lead_id: undefined }), false],
  ])("%s %j: %s", (schema, record, valid) => {
    const validate = validatorFor(schema as string);
    expect(validate(record), JSON.stringify(validate.errors)).toBe(valid);
  });
});

describe("the reference source validates against the document", () => {
  let source: ReferenceSource;
  beforeAll(async () => {
    source = await startReferenceSource({ sizes: { contacts: 150, leads: 150, tasks: 40, calls: 40, events: 120 }, faults: { missing: ["tasks"] } });
  });
  afterAll(async () => {
    await source.close();
  });

  const get = async (path: string, token: string | null = source.token) => {
    const response = await fetch(`${source.url}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };

  test.each(["pipelines", "users", "contacts", "leads", "calls", "events"])("GET /%s, pages 1 and 2: the 200 bodies match the page schema", async (entity) => {
    const name = { pipelines: "Pipeline", users: "User", contacts: "Contact", leads: "Lead", calls: "Call", events: "Event" }[entity]!;
    const validate = validatorFor(`${name}Page`);
    for (const page of [1, 2]) {
      const since = ["pipelines", "users"].includes(entity) ? "" : "&updated_since=2000-01-01T00:00:00%2B00:00";
      const { status, body } = await get(`/${entity}?limit=${PAGE_SIZE}&page=${page}${since}`);
      expect(status).toBe(200);
      expect(validate(body), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    }
  });

  test("its 401 and its 404 (an optional endpoint not implemented) match the Error schema", async () => {
    const validate = validatorFor("Error");
    const unauthorized = await get(`/leads?limit=${PAGE_SIZE}&page=1`, null);
    const missing = await get(`/tasks?limit=${PAGE_SIZE}&page=1`);
    expect([unauthorized.status, missing.status]).toEqual([401, 404]);
    expect(validate(unauthorized.body)).toBe(true);
    expect(validate(missing.body)).toBe(true);
  });
});
