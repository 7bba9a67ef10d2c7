import { randomBytes } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamoDbChangeStore } from "../../lambdas/adapters/dynamodb/changes/dynamodb-change-store";
import { DynamoDbWebhookStore } from "../../lambdas/adapters/dynamodb/webhooks/dynamodb-webhook-store";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { createMemoryLogger } from "../../lambdas/adapters/local/json-logger";
import { webhookUrlPolicy } from "../../lambdas/adapters/source-http/ssrf/base-url-policy";
import { createHttpWebhookSender } from "../../lambdas/adapters/webhook-http/http-webhook-sender";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, rotateWebhookSecret } from "../../lambdas/domain/webhooks/webhook-operations";
import { makeWebhookDeliveryHandler } from "../../lambdas/handlers/webhooks/webhook-delivery-handler";
import { TABLE_ACCESS, type TableAction } from "../../lib/table-access";
import { runFinished } from "../builders/service-events";
import { createTestTable, testDynamoDbClient } from "../support/dynamodb";
import { recordingClient } from "./recorded-table-actions";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * The webhooks' table actions, recorded on DynamoDB Local as test/cdk/table-access.test.ts records the others': the
 * webhook routes (the Api function's) and the WebhookDelivery function over an event and a sweep, each on its own
 * client whose middleware records the IAM action of each command (a transaction by the item actions inside it).
 */
type Name = "Api" | "WebhookDelivery";
const recorded = new Map<Name, Set<TableAction>>();
const clients: DynamoDBClient[] = [];
let tableName: string;
let receiver: WebhookReceiver;
let time = Date.parse("2026-03-01T12:00:00.000Z");
const clock = { now: () => new Date(time) };
const cipher = new AesGcmTokenCipher(randomBytes(32));
const logger = createMemoryLogger();

function storeOf(name: Name): DynamoDbWebhookStore & { readonly changes: DynamoDbChangeStore } {
  const client = recordingClient(recorded, name);
  clients.push(client);
  // The change feed's reads (the cursors of changes committed) on the same recording client.
  return Object.assign(new DynamoDbWebhookStore({ client, tableName }), { changes: new DynamoDbChangeStore({ client, tableName }) });
}

beforeAll(async () => {
  const setup = testDynamoDbClient();
  clients.push(setup);
  tableName = await createTestTable(setup);
  receiver = await startWebhookReceiver((_delivery, index) => ({ status: index === 0 ? 500 : 204 }));
});
afterAll(async () => {
  await receiver.close();
  for (const client of clients) client.destroy();
});

describe("least privilege: the webhooks' table actions", () => {
  test("the webhook routes (Api) and the WebhookDelivery function, over an event, a failed first attempt and the sweep's retry, send only what TABLE_ACCESS grants them", async () => {
    const api = { webhooks: storeOf("Api"), webhookUrls: webhookUrlPolicy({ allowLoopback: true }), cipher, clock, logger };
    const created = await createWebhook(api, "acct-hooks-iam", { url: receiver.url, event_types: ["run.finished", "changes.committed"] });
    await listWebhooks(api, "acct-hooks-iam");
    await getWebhook(api, "acct-hooks-iam", created.id);
    await rotateWebhookSecret(api, "acct-hooks-iam", created.id);

    const store = storeOf("WebhookDelivery");
    const deliver = makeWebhookDeliveryHandler({ webhooks: store, changes: store.changes, sender: createHttpWebhookSender({ allowLoopback: true }), cipher, clock, logger });
    // A run that committed records: run finished and changes committed (its cursors read from the feed); the first attempt made fails.
    const event = runFinished({ records: 2, account: "acct-hooks-iam" });
    expect(await deliver({ source: "crm.custom-integration", "detail-type": event.detail_type, detail: event.detail })).toEqual({ attempts: 2 });
    time += 30_000;
    expect(await deliver({ source: "aws.events", "detail-type": "Scheduled Event", detail: {} })).toEqual({ attempts: 1 });
    expect(receiver.received).toHaveLength(3);

    expect((await listDeliveries(api, "acct-hooks-iam", created.id)).map((a) => a.outcome).sort()).toEqual(["delivered", "delivered", "retrying"]);
    await deleteWebhook(api, "acct-hooks-iam", created.id);

    for (const [name, actions] of recorded) {
      const granted = new Set<string>(TABLE_ACCESS[name]);
      for (const action of actions) expect(granted.has(action), `${name} sends ${action}, which TABLE_ACCESS does not grant it`).toBe(true);
    }
    expect([...recorded.get("WebhookDelivery")!].sort()).toEqual([...TABLE_ACCESS.WebhookDelivery].sort());
  }, 60_000);

  test("an event the handler does not know (another source, a detail outside its schema) is refused", async () => {
    const store = storeOf("WebhookDelivery");
    const deliver = makeWebhookDeliveryHandler({ webhooks: store, changes: store.changes, sender: createHttpWebhookSender({ allowLoopback: true }), cipher, clock, logger });
    await expect(deliver({ source: "crm.custom-integration", "detail-type": "Sync Run Finished", detail: { token: "x" } })).rejects.toThrow();
    await expect(deliver({ source: "aws.s3", "detail-type": "Object Created", detail: {} })).rejects.toThrow();
  });
});
