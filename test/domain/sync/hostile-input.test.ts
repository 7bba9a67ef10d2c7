import { describe, expect, test } from "vitest";
import { dynamoDbKeySpace } from "../../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { SOURCE_MAX_RESPONSE_BYTES } from "../../../lambdas/domain/core/limits";
import { explainRecord } from "../../../lambdas/domain/onboarding/explain-record";
import { computeFunnel } from "../../../lambdas/domain/figures/funnel-builder";
import { readFunnelInput } from "../../support/funnel-input";
import { DEPTH_RULE } from "../../../lambdas/domain/records/fields/depth";
import { ID_TEXT_RULE } from "../../../lambdas/domain/records/fields/text";
import { customFieldsOfDepth, DEPTH_EDGES, nestedArraysJson } from "../../builders/hostile-records";
import { minuteStamp, smallContacts, smallCrm } from "../../builders/small-crm";
import { contactRecord, leadRecord, taskRecord } from "../../builders/source-records";
import { envelope } from "../../support/source-server";
import { useScriptedCrmSource } from "../../support/scripted-crm-source";
import { entityRow, useSyncHarness } from "../../support/sync-harness";

/**
 * Hostile input on the real path: a loopback source, the HTTP client, the
 * state machine on aws-local-stepfunctions and DynamoDB Local. Each case
 * gets a clear answer (a failed page naming record, field and rule), or is
 * stored exactly; none crashes or merges two records.
 */

const TOKEN = "hostile-input-token-5d1c";
const source = useScriptedCrmSource(TOKEN, smallCrm);
const harness = useSyncHarness();

/** A 200 whose body is exactly this text or these bytes, for one path; the scripted source answers the rest. */
function rawPage(path: string, body: string | Uint8Array): void {
  source.fault = (request) => (request.path === path ? { body, headers: { "content-type": "application/json" } } : undefined);
}

async function syncNew() {
  const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
  return { connection, summary: await harness().sync(connection) };
}

describe("record.depth: a record nested deeper than the limit fails its page, naming record, field and rule", () => {
  test("record.depth: custom_fields 100,000 levels deep fails contacts with the rule, never a stack overflow, and the fault is the source's", async () => {
    const deep = `{"id":"c-deep","updated_at":"${minuteStamp(3)}","custom_fields":{"x":${nestedArraysJson(100_000)}}}`;
    rawPage("/contacts", `{"data":[${deep}],"has_more":false}`);
    const { connection, summary } = await syncNew();

    expect(entityRow(summary, "contacts")).toMatchObject({ status: "failed", records: 0 });
    expect(entityRow(summary, "contacts")?.error).toContain(`record c-deep, field custom_fields, rule record.depth: ${DEPTH_RULE}`);
    expect(entityRow(summary, "contacts")?.failure).toMatchObject({ rule: "record.depth", record_id: "c-deep", field: "custom_fields" });
    expect(summary.entities.filter((row) => row.status === "failed").map((row) => row.entity)).toEqual(["contacts"]);
    const failed = harness().logger.lines.filter((line) => line["message"] === "entity failed" && line["connection_id"] === connection.id);
    expect(failed).toMatchObject([{ entity: "contacts", error_class: "PageValidationError", fault: "customer" }]);
    expect(JSON.stringify(harness().logger.lines)).not.toContain("Maximum call stack");
  });

  test(`record.depth: at the limit (${DEPTH_EDGES.accepted} levels) the contact is stored whole; one level more (${DEPTH_EDGES.refused}) fails its page`, async () => {
    const atLimit = customFieldsOfDepth(DEPTH_EDGES.accepted);
    source.data = { ...smallCrm(), contacts: [contactRecord({ id: "c-edge", updated_at: minuteStamp(1), custom_fields: atLimit })] };
    const first = await syncNew();
    expect(entityRow(first.summary, "contacts")).toMatchObject({ status: "succeeded", records: 1 });
    expect((await harness().records.getRecord(first.connection.id, "contacts", ["c-edge"])).record?.["custom_fields"]).toEqual(atLimit);

    source.data = { ...smallCrm(), contacts: [contactRecord({ id: "c-over", updated_at: minuteStamp(1), custom_fields: customFieldsOfDepth(DEPTH_EDGES.refused) })] };
    const second = await syncNew();
    expect(entityRow(second.summary, "contacts")).toMatchObject({ status: "failed" });
    expect(entityRow(second.summary, "contacts")?.error).toContain(`record c-over, field custom_fields, rule record.depth: ${DEPTH_RULE}`);
    expect((await harness().records.getRecord(second.connection.id, "contacts", ["c-over"])).record).toBeNull();
  });
});

describe("record.id-unicode and envelope.utf8: ids are the exact strings the source sent; none is merged with another", () => {
  test("record.id-unicode: ids differing only in code units (é composed or not, two emoji) are distinct records", async () => {
    const ids = ["caf\u00e9", "cafe\u0301", "\ud83d\ude00", "\ud83d\ude01"];
    source.data = { ...smallCrm(), contacts: ids.map((id, i) => contactRecord({ id, updated_at: minuteStamp(i) })) };
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", records: 4 });
    expect((await harness().listAll(connection.id, "contacts")).map((record) => record["id"]).sort()).toEqual([...ids].sort());
  });

  test("record.id-unicode: ids that differ only in a lone surrogate (a\\ud800, a\\udc00) fail their page with the rule; nothing is merged", async () => {
    source.data = { ...smallCrm(), contacts: [contactRecord({ id: "a\ud800", updated_at: minuteStamp(1) }), contactRecord({ id: "a\udc00", updated_at: minuteStamp(2) })] };
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "failed", records: 0 });
    expect(entityRow(summary, "contacts")?.error).toContain(`record a\\ud800, field id, rule record.id-unicode: ${ID_TEXT_RULE}`);
    expect(entityRow(summary, "contacts")?.failure).toMatchObject({ rule: "record.id-unicode", field: "id" });
    expect(await harness().listAll(connection.id, "contacts")).toEqual([]);
  });

  test("envelope.utf8: ids that differ only in bytes that are not UTF-8 fail their page, naming the byte and where it is; nothing is merged", async () => {
    const record = (bad: number, minute: number) =>
      Buffer.concat([Buffer.from('{"id":"a'), Buffer.from([bad]), Buffer.from(`","updated_at":"${minuteStamp(minute)}"}`)]);
    const head = Buffer.from('{"data":[');
    rawPage("/contacts", Buffer.concat([head, record(0xff, 1), Buffer.from(","), record(0xfe, 2), Buffer.from('],"has_more":false}')]));
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "failed", records: 0 });
    expect(entityRow(summary, "contacts")?.error).toContain(`response body is not UTF-8: byte 0xFF at offset ${head.length + 8}, after "{\\"data\\":[{\\"id\\":\\"a"; send JSON encoded as UTF-8`);
    expect(entityRow(summary, "contacts")?.failure).toMatchObject({ rule: "envelope.utf8", record_id: null, field: null });
    expect(await harness().listAll(connection.id, "contacts")).toEqual([]);
  });
});

describe("a record of any size is stored whole: task text is never cut, up to the source's body limit", () => {
  async function syncTask(text: string) {
    source.data = { ...smallCrm(), tasks: [taskRecord({ id: "t-big", lead_id: "l1", text, updated_at: minuteStamp(5) })] };
    const { connection, summary } = await syncNew();
    const explained = await explainRecord({ connections: harness().connections, audits: harness().deps.audits, runs: harness().runs, keySpace: dynamoDbKeySpace, clock: harness().deps.clock }, { account: "acct-1", connectionId: connection.id, entity: "tasks", recordId: "t-big", query: {} });
    return { connection, summary, explained, stored: (await harness().records.getRecord(connection.id, "tasks", ["t-big"])).record };
  }

  test("a record is stored whole at any size: a task of 4 MB of text syncs, is stored exactly, and explain calls it current", async () => {
    const text = `${"ж".repeat(1_000_000)}${"t".repeat(2_000_000)}`;
    const { connection, summary, explained, stored } = await syncTask(text);
    expect(entityRow(summary, "tasks")).toMatchObject({ status: "succeeded", records: 1 });
    expect(stored?.["text"] === text).toBe(true);
    expect(explained).toMatchObject({ present: true, verdict: "current" });
    expect(await harness().records.getWatermark(connection.id, "tasks")).toBe(minuteStamp(5));
  });

  test("a record is stored whole at any size: a task whose body is exactly the 16 MiB the service reads is stored whole", async () => {
    const empty = Buffer.byteLength(JSON.stringify({ data: [taskRecord({ id: "t-big", lead_id: "l1", text: "", updated_at: minuteStamp(5) })], has_more: false }));
    const text = "m".repeat(SOURCE_MAX_RESPONSE_BYTES - empty);
    const { summary, explained, stored } = await syncTask(text);
    expect(entityRow(summary, "tasks")).toMatchObject({ status: "succeeded", records: 1 });
    expect((stored?.["text"] as string | undefined)?.length).toBe(text.length);
    expect(stored?.["text"] === text).toBe(true);
    expect(explained).toMatchObject({ present: true, verdict: "current" });
  }, 120_000);
});

describe("lead.price whole part exact: price keeps its whole part exactly, and revenue sums it exactly", () => {
  test("lead.price whole part exact: a numeric string of 24 digits is stored digit for digit, and revenue won adds it without rounding", async () => {
    const huge = "123456789012345678901234";
    source.data = {
      ...smallCrm(),
      leads: [
        leadRecord({ id: "l1", pipeline_id: "p1", stage_id: "won", price: `${huge}.99`, updated_at: minuteStamp(1) }),
        leadRecord({ id: "l2", pipeline_id: "p1", stage_id: "won", price: 1000, updated_at: minuteStamp(2) }),
      ],
    };
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 2 });
    expect((await harness().records.getRecord(connection.id, "leads", ["l1"])).record?.["price"]).toBe(huge);
    expect((await harness().records.getRecord(connection.id, "leads", ["l2"])).record?.["price"]).toBe(1000);
    const funnel = computeFunnel(await readFunnelInput(harness().records, connection.id), new Date(Date.UTC(2026, 5, 1)));
    expect(funnel.pipelines[0]?.revenue_won).toBe("123456789012345678902234");
  });

  test("lead.price whole part exact: a JSON number beyond 2^53 is as precise as JSON.parse reads it (a double), stored as that double's exact digits", async () => {
    const lead = JSON.stringify(leadRecord({ id: "l-num", pipeline_id: "p1", stage_id: "won", updated_at: minuteStamp(1) })).replace('"price":1500', '"price":123456789012345678901234');
    rawPage("/leads", `{"data":[${lead}],"has_more":false}`);
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 1 });
    expect((await harness().records.getRecord(connection.id, "leads", ["l-num"])).record?.["price"]).toBe("123456789012345685803008");
  });
});

describe("a short token never garbles ordinary words: what the source says reaches the owner readable, the token hidden where it stands", () => {
  test("a short token never garbles ordinary words: a one-character token is hidden in the failure detail, every other e kept", async () => {
    source.fault = (request) =>
      request.headers.authorization === "Bearer e" ? { status: 403, json: { error: `the source refused the token e: it cannot read ${request.path}` } } : undefined;
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: "e" });
    const summary = await harness().sync(connection);
    expect(entityRow(summary, "pipelines")).toMatchObject({ status: "failed" });
    expect(entityRow(summary, "pipelines")?.error).toContain("the source refused the token [redacted]: it cannot read /pipelines");
    expect(entityRow(summary, "users")?.error).toContain("the source refused the token [redacted]: it cannot read /users");
  });
});

describe("records counts distinct records: a run summary counts each record it wrote once", () => {
  /** Contacts c0..c149 on two pages, c99 sent again at the top of page 2 (as a live CRM does when a record changes mid-run). */
  function contactsOnTwoPagesWithOneRepeated(): void {
    const contacts = smallContacts(150);
    source.fault = (request) => {
      if (request.path !== "/contacts") return undefined;
      return request.query.get("page") === "1" ? { json: envelope(contacts.slice(0, 100), true) } : { json: envelope(contacts.slice(99), false) };
    };
  }

  test("records counts distinct records: a record the source sends on two pages is one record in the run's count", async () => {
    contactsOnTwoPagesWithOneRepeated();
    const { connection, summary } = await syncNew();
    expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", pages: 2, records: 150 });
    expect(await harness().listAll(connection.id, "contacts")).toHaveLength(150);
    expect((await harness().records.getRecord(connection.id, "contacts", ["c99"])).lineage).toMatchObject({ writes: 2, first_seen: { page: 1 }, last_written: { page: 2 } });
  });

  test("records counts distinct records: a page whose commit reply is lost is replayed by the state machine and counts nothing twice", async () => {
    contactsOnTwoPagesWithOneRepeated();
    let lost = 0;
    // The reply to the transaction that counts contacts' page 2 is lost once, after DynamoDB committed it.
    harness().client.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const input = args.input as { TransactItems?: { Update?: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, { N?: string }> } }[] };
        const progress = input.TransactItems?.[1]?.Update;
        if (context.commandName === "TransactWriteItemsCommand" && lost === 0 && progress?.ExpressionAttributeNames?.["#entity"] === "contacts" && progress.ExpressionAttributeValues?.[":page"]?.N === "2") {
          lost += 1;
          throw Object.assign(new Error("injected: the reply was lost after the commit"), { name: "InternalServerError" });
        }
        return out;
      },
      { step: "initialize", name: "loseOneReply" },
    );
    try {
      const { summary } = await syncNew();
      expect(lost).toBe(1);
      expect(entityRow(summary, "contacts")).toMatchObject({ status: "succeeded", pages: 2, records: 150 });
    } finally {
      harness().client.middlewareStack.remove("loseOneReply");
    }
  });
});
