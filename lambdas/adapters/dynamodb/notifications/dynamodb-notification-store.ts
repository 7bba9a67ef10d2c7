import {
  QueryCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type AttributeValue,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import type { NotificationStore } from "../../../domain/core/ports/notification-store";
import { NotificationSchema, type Notification } from "../../../domain/core/service-events";
import { checkedPartitionKey } from "../table/key-limits";

/**
 * Notifications in the single table (pk S, sk S):
 *
 *   listed       pk = NOTIFY#<business_account_id>   sk = at#<ISO time>#<event id>
 *   id marker    pk = NOTIFY#<business_account_id>   sk = id#<event id>
 *
 * Both are written in one transaction, the marker on condition that it does
 * not exist, so an event id is recorded once. The list is a Query on the `at#`
 * prefix, newest first. Both expire NOTIFICATION_RETENTION_DAYS after they
 * were written (the table's TTL). `NOTIFY#` shares no prefix with the other
 * stores' partitions.
 */
const PREFIX = "NOTIFY#";
export const NOTIFICATION_RETENTION_DAYS = 90;
const EXPIRES_AT = "expires_at";

export class DynamoDbNotificationStore extends DynamoDbTableAdapter implements NotificationStore {
  async add(businessAccountId: string, notification: Notification): Promise<boolean> {
    const pk = partitionKey(businessAccountId);
    const expiresAt = Math.floor(Date.parse(notification.at) / 1000) + NOTIFICATION_RETENTION_DAYS * 86_400;
    try {
      await this.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: { pk: { S: pk }, sk: { S: `id#${notification.id}` }, [EXPIRES_AT]: { N: String(expiresAt) } },
                ConditionExpression: "attribute_not_exists(pk)",
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...marshall({ ...notification, detail: JSON.stringify(notification.detail) }),
                  pk: { S: pk },
                  sk: { S: `at#${notification.at}#${notification.id}` },
                  [EXPIRES_AT]: { N: String(expiresAt) },
                },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === "ConditionalCheckFailed") return false;
      throw error;
    }
  }

  async listLatest(businessAccountId: string, limit: number): Promise<Notification[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :at)",
        ExpressionAttributeValues: { ":pk": { S: partitionKey(businessAccountId) }, ":at": { S: "at#" } },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(readNotification);
  }
}

function partitionKey(businessAccountId: string): string {
  if (businessAccountId.length === 0) throw new TypeError("businessAccountId must not be empty");
  return checkedPartitionKey(`${PREFIX}${businessAccountId}`);
}

function readNotification(item: Record<string, AttributeValue>): Notification {
  const { pk: _pk, sk: _sk, [EXPIRES_AT]: _expires, detail, ...rest } = unmarshall(item) as Record<string, unknown>;
  return v.parse(NotificationSchema, { ...rest, detail: JSON.parse(String(detail)) });
}
