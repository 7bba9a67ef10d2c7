import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type QueryCommandInput,
} from "@aws-sdk/client-dynamodb";
import type { ConnectionStore, StoredConnection } from "../core/ports";
import { LOCK_SORT_KEY, RUN_ATTR, runLockPartitionKey } from "../runs/run-keys";
import { ATTR, watermarkPartitionKey } from "../store/keys";
import {
  CONNECTION_ATTR,
  CONNECTION_PARTITION_KEY,
  DELETED_CONNECTION_RETENTION_SECONDS,
  EXPIRES_AT_ATTR,
  accountSortKeyPrefix,
  connectionSortKey,
} from "./connection-keys";

export interface DynamoDbConnectionStoreOptions {
  /** Injected: the store never builds a client (endpoint, credentials and retries are the caller's). */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Epoch ms; the delete's time, from which the connection's leftovers expire. Defaults to Date.now. */
  readonly now?: () => number;
}

/** A stored connection item that is not a StoredConnection (written by something else, or damaged). */
export class CorruptConnectionItemError extends Error {
  override readonly name = "CorruptConnectionItemError";
}

type Item = Record<string, AttributeValue>;

/**
 * ConnectionStore on the single DynamoDB table (key layout: ./connection-keys.ts).
 * Each field of the connection is its own attribute (rate_limit a number, the
 * rest strings), never a JSON blob. Reads are strongly consistent. DynamoDB
 * errors propagate unchanged.
 */
export class DynamoDbConnectionStore implements ConnectionStore {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;
  private readonly now: () => number;

  constructor(options: DynamoDbConnectionStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.now = options.now ?? Date.now;
  }

  async put(connection: StoredConnection): Promise<void> {
    await this.client.send(new PutItemCommand({ TableName: this.tableName, Item: toItem(connection) }));
  }

  async get(businessAccountId: string, connectionId: string): Promise<StoredConnection | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: key(businessAccountId, connectionId),
        ConsistentRead: true,
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
    if (existing.Item !== undefined) await this.markLeftovers(connectionId);
    await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: connectionKey }));
  }

  /** Sets expires_at on the connection's watermarks and lock, only on items that exist (never a stub). */
  private async markLeftovers(connectionId: string): Promise<void> {
    const expiresAt = Math.floor(this.now() / 1000) + DELETED_CONNECTION_RETENTION_SECONDS;
    const keys: Item[] = [{ [RUN_ATTR.pk]: { S: runLockPartitionKey(connectionId) }, [RUN_ATTR.sk]: { S: LOCK_SORT_KEY } }];
    let startKey: Item | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk",
          ProjectionExpression: "#pk, #sk",
          ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
          ExpressionAttributeValues: { ":pk": { S: watermarkPartitionKey(connectionId) } },
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
        }),
      );
      keys.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
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

  /** Every page of the query (a response stops at 1 MB; LastEvaluatedKey continues it). */
  private async query(
    input: Pick<QueryCommandInput, "KeyConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">,
  ): Promise<StoredConnection[]> {
    const connections: StoredConnection[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({ ...input, TableName: this.tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
      );
      for (const item of out.Items ?? []) connections.push(fromItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
    return connections;
  }
}

function key(businessAccountId: string, connectionId: string): Item {
  return {
    [CONNECTION_ATTR.pk]: { S: CONNECTION_PARTITION_KEY },
    [CONNECTION_ATTR.sk]: { S: connectionSortKey(businessAccountId, connectionId) },
  };
}

function toItem(connection: StoredConnection): Item {
  if (!Number.isInteger(connection.rate_limit) || connection.rate_limit < 1) {
    throw new RangeError(`rate_limit must be an integer >= 1; got ${connection.rate_limit}`);
  }
  return {
    ...key(connection.business_account_id, connection.id),
    id: { S: connection.id },
    business_account_id: { S: connection.business_account_id },
    crm_type: { S: connection.crm_type },
    base_url: { S: connection.base_url },
    rate_limit: { N: String(connection.rate_limit) },
    sync_since: { S: connection.sync_since },
    created_at: { S: connection.created_at },
    updated_at: { S: connection.updated_at },
    token_ciphertext: { S: connection.token_ciphertext },
    // Written only when true: items from before pausing existed read as not paused.
    ...(connection.paused === true ? { paused: { BOOL: true } } : {}),
  };
}

function fromItem(item: Item): StoredConnection {
  const where = `connection item ${item[CONNECTION_ATTR.sk]?.S ?? "(no sk)"}`;
  const text = (name: string): string => {
    const value = item[name]?.S;
    if (value === undefined) throw new CorruptConnectionItemError(`${where}: ${name} is missing or not a string`);
    return value;
  };
  const crmType = text("crm_type");
  if (crmType !== "custom") throw new CorruptConnectionItemError(`${where}: unknown crm_type`);
  const rateLimit = Number(item["rate_limit"]?.N);
  if (!Number.isInteger(rateLimit) || rateLimit < 1) {
    throw new CorruptConnectionItemError(`${where}: rate_limit is missing or not an integer >= 1`);
  }
  return {
    id: text("id"),
    business_account_id: text("business_account_id"),
    crm_type: crmType,
    base_url: text("base_url"),
    rate_limit: rateLimit,
    sync_since: text("sync_since"),
    created_at: text("created_at"),
    updated_at: text("updated_at"),
    token_ciphertext: text("token_ciphertext"),
    ...(item["paused"]?.BOOL === true ? { paused: true } : {}),
  };
}
