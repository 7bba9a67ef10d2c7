import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type QueryCommandInput,
} from "@aws-sdk/client-dynamodb";
import { queryAll } from "../table/query-all";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import { DynamoDbTableAdapter, type DynamoDbTableOptions } from "../table/dynamodb-table-adapter";
import { StoredConnectionSchema, type StoredConnection } from "../../../domain/core/connection";
import type { Clock } from "../../../domain/core/ports/clock";
import { systemClock } from "../../../domain/core/ports/clock";
import type { ConnectionStore, ReadConsistency } from "../../../domain/core/ports/connection-store";
import { lockKey } from "../runs/run-item/run-keys";
import { DELETED_CONNECTION_PURGE_DELAY_SECONDS, PURGE_ATTR, PURGE_PARTITION_KEY, purgeSortKey } from "../purges/purge-keys";
import { ATTR, watermarkPartitionKey } from "../records/keys";
import {
  CONNECTION_ATTR,
  CONNECTION_PARTITION_KEY,
  DELETED_CONNECTION_RETENTION_SECONDS,
  EXPIRES_AT_ATTR,
  accountSortKeyPrefix,
  connectionSortKey,
} from "./connection-keys";

export interface DynamoDbConnectionStoreOptions extends DynamoDbTableOptions {
  /** The delete's time, from which the connection's leftovers expire; the wall clock by default. */
  readonly clock?: Clock;
}

/** A stored connection item that is not a StoredConnection (written by something else, or damaged). */
export class CorruptConnectionItemError extends Error {
  override readonly name = "CorruptConnectionItemError";
}

type Item = Record<string, AttributeValue>;

/**
 * ConnectionStore on the single DynamoDB table (key layout: ./connection-keys.ts).
 * Each field of the connection is its own attribute (rate_limit a number, the
 * rest strings), never a JSON blob: util-dynamodb converts, the domain's
 * StoredConnectionSchema checks both ways. Reads are strongly consistent,
 * except a get that asks for "eventual" (the page task's, docs/hot-keys.md).
 * Busy DynamoDB errors become StoreUnavailableError (DynamoDbTableAdapter); others propagate unchanged.
 */
export class DynamoDbConnectionStore extends DynamoDbTableAdapter implements ConnectionStore {
  /** Epoch ms. */
  private readonly now: () => number;

  constructor(options: DynamoDbConnectionStoreOptions) {
    super(options);
    const clock = options.clock ?? systemClock;
    this.now = () => clock.now().getTime();
  }

  async put(connection: StoredConnection): Promise<void> {
    await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: toItem(connection) }));
  }

  async get(
    businessAccountId: string,
    connectionId: string,
    options?: { readonly consistency?: ReadConsistency },
  ): Promise<StoredConnection | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: key(businessAccountId, connectionId),
        ConsistentRead: options?.consistency !== "eventual",
      }),
    );
    return out.Item === undefined ? null : fromItem(out.Item);
  }

  async listByAccount(businessAccountId: string): Promise<StoredConnection[]> {
    return this.query({
      KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
      ExpressionAttributeNames: { "#pk": CONNECTION_ATTR.pk, "#sk": CONNECTION_ATTR.sk },
      ExpressionAttributeValues: {
        ":pk": { S: CONNECTION_PARTITION_KEY },
        ":prefix": { S: accountSortKeyPrefix(businessAccountId) },
      },
    });
  }

  async listAll(): Promise<StoredConnection[]> {
    return this.query({
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": CONNECTION_ATTR.pk },
      ExpressionAttributeValues: { ":pk": { S: CONNECTION_PARTITION_KEY } },
    });
  }

  async listAllPage(options: { readonly limit: number; readonly cursor: string | null }) {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": CONNECTION_ATTR.pk },
        ExpressionAttributeValues: { ":pk": { S: CONNECTION_PARTITION_KEY } },
        Limit: options.limit,
        ConsistentRead: true,
        ...(options.cursor === null ? {} : { ExclusiveStartKey: JSON.parse(Buffer.from(options.cursor, "base64url").toString("utf8")) as Item }),
      }),
    );
    return {
      connections: (out.Items ?? []).map(fromItem),
      cursor: out.LastEvaluatedKey === undefined ? null : Buffer.from(JSON.stringify(out.LastEvaluatedKey), "utf8").toString("base64url"),
    };
  }

  /**
   * Idempotent: deleting an unknown (or another workspace's) connection does
   * nothing. The connection item goes at once; its watermarks (one small
   * partition) and run lock are marked to expire a day later, first, so a
   * retried delete redoes the marking. Records, parts and run summaries are
   * not marked here (docs/retention.md says what expires and when).
   */
  async delete(businessAccountId: string, connectionId: string): Promise<void> {
    const connectionKey = key(businessAccountId, connectionId);
    const existing = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: connectionKey, ConsistentRead: true }),
    );
    if (existing.Item !== undefined) {
      // Queued first, so a delete that fails after it still has its data purged once retried (the purge keeps a live connection).
      await this.queuePurge(businessAccountId, connectionId);
      await this.markLeftovers(connectionId);
    }
    await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: connectionKey }));
  }

  /** The pending purge of the connection's data (lambdas/domain/retention/purge-deleted-connections.ts), due an hour from now. */
  private async queuePurge(businessAccountId: string, connectionId: string): Promise<void> {
    const deletedAt = new Date(this.now());
    const notBefore = new Date(deletedAt.getTime() + DELETED_CONNECTION_PURGE_DELAY_SECONDS * 1000);
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [PURGE_ATTR.pk]: { S: PURGE_PARTITION_KEY },
          [PURGE_ATTR.sk]: { S: purgeSortKey(notBefore, connectionId) },
          [PURGE_ATTR.connectionId]: { S: connectionId },
          [PURGE_ATTR.businessAccountId]: { S: businessAccountId },
          [PURGE_ATTR.deletedAt]: { S: deletedAt.toISOString() },
        },
      }),
    );
  }

  /** Sets expires_at on the connection's watermarks and lock, only on items that exist (never a stub). */
  private async markLeftovers(connectionId: string): Promise<void> {
    const expiresAt = Math.floor(this.now() / 1000) + DELETED_CONNECTION_RETENTION_SECONDS;
    const watermarks = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk",
      ProjectionExpression: "#pk, #sk",
      ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
      ExpressionAttributeValues: { ":pk": { S: watermarkPartitionKey(connectionId) } },
      ConsistentRead: true,
    });
    const keys: Item[] = [lockKey(connectionId), ...watermarks];
    for (const itemKey of keys) {
      try {
        await this.client.send(
          new UpdateItemCommand({
            TableName: this.tableName,
            Key: itemKey,
            UpdateExpression: "SET #expiresAt = :expiresAt",
            ConditionExpression: "attribute_exists(#pk)",
            ExpressionAttributeNames: { "#expiresAt": EXPIRES_AT_ATTR, "#pk": ATTR.pk },
            ExpressionAttributeValues: { ":expiresAt": { N: String(expiresAt) } },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error; // gone already (no lock, or a reset)
      }
    }
  }

  /** Every connection the query finds, read whole. */
  private async query(
    input: Pick<QueryCommandInput, "KeyConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">,
  ): Promise<StoredConnection[]> {
    return (await queryAll(this.client, { ...input, TableName: this.tableName, ConsistentRead: true })).map(fromItem);
  }
}

function key(businessAccountId: string, connectionId: string): Item {
  return {
    [CONNECTION_ATTR.pk]: { S: CONNECTION_PARTITION_KEY },
    [CONNECTION_ATTR.sk]: { S: connectionSortKey(businessAccountId, connectionId) },
  };
}

function toItem(connection: StoredConnection): Item {
  const parsed = v.safeParse(StoredConnectionSchema, connection, { abortEarly: true });
  if (!parsed.success) throw new RangeError(`connection ${connection.id}: ${describeIssue(parsed.issues[0])}`);
  // paused is written only when true: items from before pausing existed read as not paused.
  const { paused, ...fields } = parsed.output;
  return {
    ...key(connection.business_account_id, connection.id),
    ...marshall({ ...fields, ...(paused === true ? { paused: true } : {}) }, { removeUndefinedValues: true }),
  };
}

function fromItem(item: Item): StoredConnection {
  const parsed = v.safeParse(StoredConnectionSchema, unmarshall(item), { abortEarly: true });
  if (!parsed.success) {
    const where = `connection item ${item[CONNECTION_ATTR.sk]?.S ?? "(no sk)"}`;
    throw new CorruptConnectionItemError(`${where}: ${describeIssue(parsed.issues[0])}`);
  }
  const { paused, ...fields } = parsed.output;
  return { ...fields, ...(paused === true ? { paused: true } : {}) };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  return `${issue.path?.map((item) => String(item.key)).join(".") || "(item)"}: ${issue.message}`;
}
