import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type AttributeValue,
  type TransactWriteItem,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import type { PendingDelivery } from "../../../domain/webhooks/webhook-delivery";
import { DeliveryAttemptSchema, type DeliveryAttempt, type StoredWebhookEndpoint } from "../../../domain/webhooks/webhook-endpoint";
import { WEBHOOK_ATTEMPT_OFFSETS_SECONDS, WEBHOOK_DELIVERY_RETENTION_DAYS } from "../../../domain/webhooks/webhook-limits";
import type { WebhookStore } from "../../../domain/webhooks/webhook-ports";
import { queryAll } from "../table/query-all";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { checkedPartitionKey } from "../table/key-limits";

/**
 * Webhooks in the single table (pk S, sk S):
 *
 *   endpoint     pk = WEBHOOK#<business_account_id>   sk = endpoint#<endpoint id>
 *   attempt      pk = WEBHOOK#<business_account_id>   sk = attempt#<endpoint id>#<attempted_at>#<delivery id>#<nn>  (TTL)
 *   once marker  pk = WEBHOOK#<business_account_id>   sk = delivery#<delivery id>                                   (TTL)
 *   due          pk = WEBHOOK_DUE                     sk = <due_at ISO>#<delivery id>
 *
 * A delivery is due once: its marker is put on condition it does not exist, in the transaction that puts its due
 * item. The sweep is a Query of the one due partition up to now; claiming moves the item (conditional Delete, Put
 * at the lease's time) in one transaction, so two sweeps never both send one attempt. Attempts are listed newest
 * first by the Query of the endpoint's `attempt#` prefix. `WEBHOOK` shares no prefix with the other stores.
 */
const PREFIX = "WEBHOOK#";
const DUE_PK = "WEBHOOK_DUE";
const EXPIRES_AT = "expires_at";
const DAY_SECONDS = 86_400;
/** The marker outlives every attempt of its delivery (plus a day): an event handed over again within it adds nothing. */
const MARKER_SECONDS = WEBHOOK_ATTEMPT_OFFSETS_SECONDS.at(-1)! + DAY_SECONDS;

const accountKey = (businessAccountId: string): string => {
  if (businessAccountId.length === 0) throw new TypeError("businessAccountId must not be empty");
  return checkedPartitionKey(`${PREFIX}${businessAccountId}`);
};
const dueKey = (delivery: Pick<PendingDelivery, "due_at" | "id">) => ({ pk: { S: DUE_PK }, sk: { S: `${delivery.due_at}#${delivery.id}` } });
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export class DynamoDbWebhookStore extends DynamoDbTableAdapter implements WebhookStore {
  async putEndpoint(endpoint: StoredWebhookEndpoint): Promise<void> {
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: { ...marshall(endpoint, { removeUndefinedValues: true }), pk: { S: accountKey(endpoint.business_account_id) }, sk: { S: `endpoint#${endpoint.id}` } },
      }),
    );
  }

  async getEndpoint(businessAccountId: string, id: string): Promise<StoredWebhookEndpoint | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: accountKey(businessAccountId) }, sk: { S: `endpoint#${id}` } }, ConsistentRead: true }),
    );
    return out.Item === undefined ? null : readEndpoint(out.Item);
  }

  async listEndpoints(businessAccountId: string): Promise<StoredWebhookEndpoint[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :endpoint)",
      ExpressionAttributeValues: { ":pk": { S: accountKey(businessAccountId) }, ":endpoint": { S: "endpoint#" } },
      ConsistentRead: true,
    });
    return items.map(readEndpoint);
  }

  async deleteEndpoint(businessAccountId: string, id: string): Promise<void> {
    await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: accountKey(businessAccountId) }, sk: { S: `endpoint#${id}` } } }));
  }

  async enqueue(deliveries: readonly PendingDelivery[]): Promise<PendingDelivery[]> {
    const fresh: PendingDelivery[] = [];
    for (const delivery of deliveries) {
      const marker: TransactWriteItem = {
        Put: {
          TableName: this.tableName,
          Item: {
            pk: { S: accountKey(delivery.business_account_id) },
            sk: { S: `delivery#${delivery.id}` },
            [EXPIRES_AT]: { N: String(epochSeconds(delivery.first_at) + MARKER_SECONDS) },
          },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      };
      try {
        await this.client.send(new TransactWriteItemsCommand({ TransactItems: [marker, { Put: { TableName: this.tableName, Item: dueItem(delivery) } }] }));
        fresh.push(delivery);
      } catch (error) {
        if (!conditionFailed(error, 0)) throw error;
      }
    }
    return fresh;
  }

  async due(now: Date, limit: number): Promise<PendingDelivery[]> {
    // `$` sorts right after `#`: every sort key `<due_at>#...` with due_at <= now, and none later.
    const items = await queryAll(
      this.client,
      {
        TableName: this.tableName,
        KeyConditionExpression: "pk = :pk AND sk < :upTo",
        ExpressionAttributeValues: { ":pk": { S: DUE_PK }, ":upTo": { S: `${now.toISOString()}$` } },
      },
      { limit },
    );
    return items.map(readDelivery);
  }

  async claim(delivery: PendingDelivery, leaseUntil: Date): Promise<PendingDelivery | null> {
    const claimed: PendingDelivery = { ...delivery, attempts: delivery.attempts + 1, due_at: leaseUntil.toISOString() };
    try {
      await this.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: dueKey(delivery), ConditionExpression: "attribute_exists(pk) AND attempts = :attempts", ExpressionAttributeValues: { ":attempts": { N: String(delivery.attempts) } } } },
            { Put: { TableName: this.tableName, Item: dueItem(claimed) } },
          ],
        }),
      );
      return claimed;
    } catch (error) {
      if (conditionFailed(error, 0)) return null;
      throw error;
    }
  }

  async settle(claimed: PendingDelivery, attempt: DeliveryAttempt | null, next: Date | null): Promise<void> {
    const items: TransactWriteItem[] = [{ Delete: { TableName: this.tableName, Key: dueKey(claimed) } }];
    if (next !== null) items.push({ Put: { TableName: this.tableName, Item: dueItem({ ...claimed, due_at: next.toISOString() }) } });
    if (attempt !== null) {
      items.push({
        Put: {
          TableName: this.tableName,
          Item: {
            ...marshall(attempt),
            pk: { S: accountKey(claimed.business_account_id) },
            sk: { S: `attempt#${claimed.endpoint_id}#${attempt.attempted_at}#${claimed.id}#${String(attempt.attempt).padStart(2, "0")}` },
            [EXPIRES_AT]: { N: String(epochSeconds(attempt.attempted_at) + WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_SECONDS) },
          },
        },
      });
    }
    await this.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
  }

  async listAttempts(businessAccountId: string, endpointId: string, limit: number): Promise<DeliveryAttempt[]> {
    const items = await queryAll(
      this.client,
      {
        TableName: this.tableName,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": { S: accountKey(businessAccountId) }, ":prefix": { S: `attempt#${endpointId}#` } },
        ScanIndexForward: false,
      },
      { limit },
    );
    return items.map((item) => {
      const { pk: _pk, sk: _sk, [EXPIRES_AT]: _expires, ...rest } = unmarshall(item);
      return v.parse(DeliveryAttemptSchema, rest);
    });
  }
}

function dueItem(delivery: PendingDelivery): Record<string, AttributeValue> {
  return { ...marshall(delivery), ...dueKey(delivery) };
}

function readDelivery(item: Record<string, AttributeValue>): PendingDelivery {
  const { pk: _pk, sk: _sk, ...rest } = unmarshall(item);
  return rest as PendingDelivery;
}

function readEndpoint(item: Record<string, AttributeValue>): StoredWebhookEndpoint {
  const { pk: _pk, sk: _sk, ...rest } = unmarshall(item);
  return rest as StoredWebhookEndpoint;
}

function conditionFailed(error: unknown, index: number): boolean {
  return error instanceof TransactionCanceledException && error.CancellationReasons?.[index]?.Code === "ConditionalCheckFailed";
}
