import type * as v from "valibot";
import { describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../lambdas/domain/core/limits";
import { CallSchema } from "../../../lambdas/domain/records/call";
import { ContactSchema } from "../../../lambdas/domain/records/contact";
import { EventSchema } from "../../../lambdas/domain/records/event";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { PipelineSchema } from "../../../lambdas/domain/records/pipeline";
import { StageSchema } from "../../../lambdas/domain/records/stage";
import { TaskSchema } from "../../../lambdas/domain/records/task";
import { UserSchema } from "../../../lambdas/domain/records/user";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  type RawRecord,
  stageRecord,
  taskRecord,
  userRecord,
} from "../../builders/source-records";
import { hasLoneSurrogate, rejection } from "./rejection";

interface Resource {
  readonly name: string;
  readonly schema: v.GenericSchema;
  readonly build: (overrides?: RawRecord) => RawRecord;
}

const RESOURCE_LIST: readonly Resource[] = [
  { name: "pipeline", schema: PipelineSchema, build: pipelineRecord },
  { name: "stage", schema: StageSchema, build: stageRecord },
  { name: "user", schema: UserSchema, build: userRecord },
  { name: "contact", schema: ContactSchema, build: contactRecord },
  { name: "lead", schema: LeadSchema, build: leadRecord },
  { name: "task", schema: TaskSchema, build: taskRecord },
  { name: "call", schema: CallSchema, build: callRecord },
  { name: "event", schema: EventSchema, build: eventRecord },
];

const RESOURCES = Object.fromEntries(RESOURCE_LIST.map((resource) => [resource.name, resource])) as Record<string, Resource>;
const resource = (name: string): Resource => RESOURCES[name]!;

const ID_RULE = "must be a string of 1 to 255 characters";

const field = (output: unknown, key: string): unknown => (output as Record<string, unknown>)[key];

describe.each(RESOURCE_LIST.map((r) => [r.name, r] as const))("%s id", (_name, { schema, build }) => {
  test("id: missing fails the page", () => {
    expect(rejection(schema, build({ id: undefined }), 4)).toMatchObject({ recordId: "#4", field: "id", rule: ID_RULE });
  });

  test("id: empty string fails the page", () => {
    expect(rejection(schema, build({ id: "" }), 0)).toMatchObject({ recordId: "#0", field: "id", rule: ID_RULE });
  });

  test("id: 256 characters fails the page", () => {
    const id = "i".repeat(TEXT_LIMITS.id + 1);
    expect(rejection(schema, build({ id }))).toMatchObject({ recordId: id, field: "id", rule: ID_RULE });
  });

  test("id: non-string fails the page", () => {
    expect(rejection(schema, build({ id: 42 }), 7)).toMatchObject({ recordId: "#7", field: "id", rule: ID_RULE });
  });

  test("id: null fails the page", () => {
    expect(rejection(schema, build({ id: null }), 1)).toMatchObject({ recordId: "#1", field: "id", rule: ID_RULE });
  });

  test("id: 255 characters is kept whole", () => {
    const id = "i".repeat(TEXT_LIMITS.id);
    expect(field(parseRecord(schema, build({ id }), 0), "id")).toBe(id);
  });

  test("id: 255 emoji (510 UTF-16 units) is 255 characters and passes", () => {
    const id = "😀".repeat(TEXT_LIMITS.id);
    expect(field(parseRecord(schema, build({ id }), 0), "id")).toBe(id);
  });

  test("record: a non-object record fails as (record)", () => {
    for (const raw of [null, "lead", 3, [build()]]) {
      expect(rejection(schema, raw, 2)).toMatchObject({ recordId: "#2", field: "(record)", rule: "must be a JSON object" });
    }
  });
});

/** [resource, field, limit, builder overrides that make the field the one read]. */
const TRUNCATED: readonly [string, string, number, RawRecord?][] = [
  ["pipeline", "name", TEXT_LIMITS.name],
  ["stage", "name", TEXT_LIMITS.name],
  ["stage", "color", TEXT_LIMITS.stageColor],
  ["user", "name", TEXT_LIMITS.name],
  ["user", "email", TEXT_LIMITS.email],
  ["user", "role", TEXT_LIMITS.userRole],
  ["contact", "name", TEXT_LIMITS.name],
  ["contact", "phone", TEXT_LIMITS.contactPhone],
  ["contact", "email", TEXT_LIMITS.email],
  ["lead", "name", TEXT_LIMITS.name],
  ["lead", "source", TEXT_LIMITS.leadSource],
  ["lead", "loss_reason", TEXT_LIMITS.lossReason],
  ["task", "lead_id", TEXT_LIMITS.reference],
  ["task", "contact_id", TEXT_LIMITS.reference, { lead_id: null }],
  ["call", "lead_id", TEXT_LIMITS.reference],
  ["call", "contact_id", TEXT_LIMITS.reference, { lead_id: null }],
  ["call", "phone", TEXT_LIMITS.callPhone],
  ["event", "lead_id", TEXT_LIMITS.reference],
  ["event", "type", TEXT_LIMITS.eventType],
];

describe.each(TRUNCATED)("%s %s truncation", (name, key, limit, extra) => {
  const { schema, build } = resource(name);
  const parse = (value: string) => field(parseRecord(schema, build({ ...extra, [key]: value }), 0), key);

  test(`${name} ${key}: text at its limit (${limit}) is kept whole`, () => {
    expect(parse("x".repeat(limit))).toBe("x".repeat(limit));
  });

  test(`${name} ${key}: text over its limit is truncated to ${limit} characters`, () => {
    expect(parse("x".repeat(limit + 1))).toBe("x".repeat(limit));
  });

  test(`${name} ${key}: emoji over the limit are truncated whole, no lone surrogate`, () => {
    const cut = parse("😀".repeat(limit + 45));
    expect(cut).toBe("😀".repeat(limit));
    expect(hasLoneSurrogate(cut as string)).toBe(false);
  });
});

/** Text fields of each resource: a number, boolean or object fails naming the field. */
const TEXT_FIELDS: readonly [string, string][] = [
  ["pipeline", "name"],
  ["stage", "name"],
  ["stage", "color"],
  ["user", "name"],
  ["user", "email"],
  ["user", "role"],
  ["contact", "name"],
  ["contact", "phone"],
  ["contact", "email"],
  ["contact", "responsible_user_id"],
  ["lead", "name"],
  ["lead", "pipeline_id"],
  ["lead", "stage_id"],
  ["lead", "responsible_user_id"],
  ["lead", "loss_reason"],
  ["lead", "source"],
  ["task", "lead_id"],
  ["task", "contact_id"],
  ["task", "responsible_user_id"],
  ["task", "text"],
  ["call", "lead_id"],
  ["call", "contact_id"],
  ["call", "responsible_user_id"],
  ["call", "phone"],
  ["event", "type"],
];

describe.each(TEXT_FIELDS)("%s %s type", (name, key) => {
  const { schema, build } = resource(name);
  test.each([12, true, { text: "x" }, ["x"]])(`${name} ${key}: a non-string (%j) fails the page naming the field`, (value) => {
    expect(rejection(schema, build({ [key]: value }))).toMatchObject({
      recordId: build()["id"],
      field: key,
      rule: "must be a string or null",
    });
  });
});

// Event type (never null) and task/call associations (lead_id wins) have their own tests.
const NULLABLE_TEXT = TEXT_FIELDS.filter(([name, key]) => name !== "event" && !["lead_id", "contact_id"].includes(key));

describe.each(NULLABLE_TEXT)("%s %s null", (name, key) => {
  const { schema, build } = resource(name);
  test(`${name} ${key}: null becomes null`, () => {
    expect(field(parseRecord(schema, build({ [key]: null }), 0), key)).toBeNull();
  });

  test(`${name} ${key}: omitted becomes null and the key is still present`, () => {
    const output = parseRecord(schema, build({ [key]: undefined }), 0) as Record<string, unknown>;
    expect(output).toHaveProperty(key, null);
  });
});

test("error message: never contains the whole record", () => {
  const secret = "s".repeat(1000);
  const error = rejection(LeadSchema, leadRecord({ price: "abc", name: secret }));
  expect(error.message).not.toContain(secret);
  expect(error.message).toBe("record lead-1: field price: must be a number or a numeric string");
});
