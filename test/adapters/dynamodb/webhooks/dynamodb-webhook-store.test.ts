import { describe, expect, test } from "vitest";
import { DynamoDbWebhookStore } from "../../../../lambdas/adapters/dynamodb/webhooks/dynamodb-webhook-store";
import type { PendingDelivery } from "../../../../lambdas/domain/webhooks/webhook-delivery";
import type { DeliveryAttempt } from "../../../../lambdas/domain/webhooks/webhook-endpoint";
import { useTestTable } from "../../../support/dynamodb";

const table = useTestTable();
const store = new DynamoDbWebhookStore(table);
const T = "2026-03-01T12:00:00.000Z";

const delivery = (id: string, due_at: string, account = "acct-store"): PendingDelivery => ({
  id,
  business_account_id: account,
  endpoint_id: "ep-1",
  event_id: `evt-${id}`,
  event_type: "run.finished",
  body: '{"id":"x"}',
  first_at: T,
  attempts: 0,
  due_at,
});

const attempt = (d: PendingDelivery, at: string): DeliveryAttempt => ({
  delivery_id: d.id,
  event_id: d.event_id,
  event_type: d.event_type,
  attempt: d.attempts,
  attempted_at: at,
  status_code: 500,
  error: null,
  failure: { rule: "webhook.answers", detail: "the endpoint answered 500, not a 2xx status", fix: "Answer each delivery with a 2xx status." },
  outcome: "retrying",
  next_attempt_at: null,
});

describe("the webhook store on DynamoDB Local", () => {
  test("a delivery is enqueued once: the same id again adds nothing", async () => {
    const s = store;
    expect(await s.enqueue([delivery("d-once", T)])).toHaveLength(1);
    expect(await s.enqueue([delivery("d-once", T), delivery("d-once-2", T)])).toEqual([delivery("d-once-2", T)]);
    const due = await s.due(new Date(T), 100);
    expect(due.filter((d) => d.id.startsWith("d-once")).map((d) => d.id)).toEqual(["d-once", "d-once-2"]);
    for (const d of due) await s.settle((await s.claim(d, new Date(Date.parse(T) + 60_000)))!, null, null);
  });

  test("due lists what is due at now, earliest first: a delivery due one millisecond later is not", async () => {
    const s = store;
    await s.enqueue([delivery("d-late", "2026-03-01T12:00:00.001Z"), delivery("d-now", T), delivery("d-early", "2026-03-01T11:00:00.000Z")]);
    expect((await s.due(new Date(T), 100)).map((d) => d.id)).toEqual(["d-early", "d-now"]);
    expect((await s.due(new Date(T), 1)).map((d) => d.id)).toEqual(["d-early"]);
    expect((await s.due(new Date("2026-03-01T12:00:00.001Z"), 100)).map((d) => d.id)).toEqual(["d-early", "d-now", "d-late"]);
  });

  test("two processes claiming one due delivery at once: exactly one gets it, with one attempt more and due at its lease", async () => {
    const s = store;
    const [d] = await s.enqueue([delivery("d-race", "2026-03-01T10:00:00.000Z")]);
    const lease = new Date("2026-03-01T12:01:00.000Z");
    const claims = await Promise.all([s.claim(d!, lease), store.claim(d!, lease)]);
    const won = claims.filter((c) => c !== null);
    expect(won).toEqual([{ ...d, attempts: 1, due_at: lease.toISOString() }]);
    expect((await s.due(new Date("2026-03-01T12:00:59.999Z"), 100)).map((x) => x.id)).not.toContain("d-race");
    expect((await s.due(lease, 100)).find((x) => x.id === "d-race")?.attempts).toBe(1);
  });

  test("settle keeps the attempt's row and the next due time; settled without a next, the delivery is no longer due", async () => {
    const s = store;
    const [d] = await s.enqueue([delivery("d-settle", "2026-03-01T09:00:00.000Z")]);
    const claimed = (await s.claim(d!, new Date("2026-03-01T09:01:00.000Z")))!;
    await s.settle(claimed, attempt(claimed, "2026-03-01T09:00:00.000Z"), new Date("2026-03-01T09:00:30.000Z"));
    expect((await s.due(new Date("2026-03-01T09:00:30.000Z"), 100)).find((x) => x.id === "d-settle")).toMatchObject({ attempts: 1, due_at: "2026-03-01T09:00:30.000Z" });
    const again = (await s.claim((await s.due(new Date("2026-03-01T09:00:30.000Z"), 100)).find((x) => x.id === "d-settle")!, new Date("2026-03-01T09:02:00.000Z")))!;
    await s.settle(again, attempt(again, "2026-03-01T09:00:30.000Z"), null);
    expect((await s.due(new Date("2030-01-01T00:00:00.000Z"), 100)).map((x) => x.id)).not.toContain("d-settle");
    expect((await s.listAttempts("acct-store", "ep-1", 10)).filter((a) => a.delivery_id === "d-settle").map((a) => a.attempt)).toEqual([2, 1]);
  });

  test("endpoints and attempts are the workspace's: another workspace lists none and gets null", async () => {
    const s = store;
    await s.putEndpoint({ id: "ep-tenant", business_account_id: "acct-a", url: "https://h.example/in", event_types: ["run.finished"], secret_ciphertext: "c", created_at: T, updated_at: T });
    expect(await s.getEndpoint("acct-b", "ep-tenant")).toBeNull();
    expect(await s.listEndpoints("acct-b")).toEqual([]);
    expect((await s.listEndpoints("acct-a")).map((e) => e.id)).toEqual(["ep-tenant"]);
    expect(await s.listAttempts("acct-b", "ep-1", 10)).toEqual([]);
    await s.deleteEndpoint("acct-a", "ep-tenant");
    expect(await s.getEndpoint("acct-a", "ep-tenant")).toBeNull();
  });
});
