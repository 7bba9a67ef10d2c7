import Ajv2020 from "ajv8/dist/2020";
import * as v from "valibot";
import { beforeAll, describe, expect, test } from "vitest";
import { buildSourceApiOpenApi } from "../../../lambdas/domain/preflight/source-api-openapi";
import { price } from "../../../lambdas/domain/records/fields/price";
import { openApiDocument } from "../../../lambdas/handlers/http/openapi";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";

/**
 * The documents say what the API accepts and refuses: each pattern's edge values (and the empty query values) are
 * sent to the real API, and its answer (2xx or 422) must be what the documented schema says of the value (ajv,
 * JSON Schema 2020-12). The source API document's price pattern is held against the sync's own price field.
 */
type Schema = Record<string, any>;
const document = openApiDocument() as { paths: Record<string, Record<string, Schema>> };
const ajv = new Ajv2020({ strict: false });
const documented = (schema: Schema) => (value: unknown) => ajv.validate(schema, value);

const patchBody = document.paths[`${CONNECTIONS_PATH}/{id}`]!["patch"]!["requestBody"].content["application/json"].schema as Schema;
const parameter = (path: string, method: string, name: string): Schema =>
  (document.paths[path]![method]!["parameters"] as Schema[]).find((each) => each["name"] === name)!["schema"];

const C = (code: number) => String.fromCharCode(code);
/** Each field's edges: the pattern's range ends, one past each, the case, the white space and the control characters around it. */
const EDGES: Record<string, readonly string[]> = {
  audit_schedule: ["off", "1d", "9d", "10d", "99d", "100d", "299d", "300d", "359d", "360d", "365d", "366d", "399d", "999d", "0d", "1000d", "01d", "7D", "OFF", " 7d", "7d ", "d", ""],
  name: ["a", " a ", "   ", "a\tb", "a\nb", C(0), C(0x1f), C(0x7f), "x" + C(0x9f), C(0xa0), C(0xa0) + "b", "\u2028", "x\u2028y", "\ufeff", "😀", "é", "\u3000\u3000"],
  token: ["!", "~", "abc", " ", "a b", C(0x7f), C(0x20) + "x", "é", "\u00a0"],
};

const env = useOwnerApi("acct-openapi-edges");
let id: string;

beforeAll(async () => {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: env.owner, body: { base_url: "http://127.0.0.1:9", token: "edge-token" } });
  expect(created.status).toBe(201);
  id = created.body.id as string;
});

describe("each documented pattern accepts exactly what the API accepts", () => {
  test.each(Object.keys(EDGES))("PATCH %s: the API's 200 or 422 for each edge value is what the documented schema says", async (field) => {
    const schema = patchBody["properties"][field] as Schema;
    expect(JSON.stringify(schema)).toContain('"pattern"');
    const disagreements: string[] = [];
    for (const value of EDGES[field]!) {
      const answer = await env.api.request("PATCH", `${CONNECTIONS_PATH}/${id}`, { token: env.owner, body: { [field]: value } });
      expect([200, 422], `${field}=${JSON.stringify(value)}: ${answer.text}`).toContain(answer.status);
      if ((answer.status === 200) !== documented(schema)(value)) disagreements.push(`${JSON.stringify(value)}: API ${answer.status}`);
    }
    expect(disagreements).toEqual([]);
  });

  test("an empty cursor or pipeline_id is refused by the API (422) and by the document (minLength 1)", async () => {
    const records = `${CONNECTIONS_PATH}/{id}/records/{entity}`;
    const cursor = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/leads?cursor=`, { token: env.owner });
    expect(cursor.status).toBe(422);
    expect(documented(parameter(records, "get", "cursor"))("")).toBe(false);
    for (const route of ["", "/explain"]) {
      const answer = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/stages/s1${route}?pipeline_id=`, { token: env.owner });
      expect(answer.status, route).toBe(422);
      expect(documented(parameter(`${records}/{recordId}${route}`, "get", "pipeline_id"))(""), route).toBe(false);
      expect(documented(parameter(`${records}/{recordId}${route}`, "get", "pipeline_id"))("p1"), route).toBe(true);
    }
  });

  test("both routes on one record refuse alike: an unknown collection and an id over 1024 UTF-8 bytes are 404, a stage without its pipeline_id is 422", async () => {
    const overLong = encodeURIComponent("é".repeat(513));
    for (const route of ["", "/explain"]) {
      const status = async (path: string) => (await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/records/${path}${route}`, { token: env.owner })).status;
      expect([await status("no_such_collection/r1"), await status(`leads/${overLong}`), await status("stages/s1")], route).toEqual([404, 404, 422]);
    }
  });
});

describe("the source API document's patterns accept exactly what the sync accepts", () => {
  test("a lead's price as text: the documented pattern matches exactly the strings the sync's price field takes", () => {
    const lead = (buildSourceApiOpenApi() as { components: { schemas: Record<string, Schema> } }).components.schemas["Lead"]!;
    const text = (lead["properties"]["price"]["anyOf"] as Schema[]).find((each) => each["type"] === "string")!;
    const values = ["1", " 1 ", "\u00a01\u00a0", "\t1\n", "1.", ".5", "+1", "-1", "1e3", "1E-3", "1,0", "1 2", "", " ", ".", "e3", "0x10", "١", "\u20281\u2029", "\ufeff1"];
    const disagreements = values.filter((value) => v.safeParse(price, value).success !== documented(text)(value));
    expect(disagreements).toEqual([]);
  });
});
