import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";

/**
 * The one table of canonical records, as data: CDK (lib/) builds the deployed
 * table from it, and ensureTable() creates the same table for the tests and
 * the local runtime. The key layout inside it is in ../records/keys.ts.
 */
export const RECORD_TABLE = {
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  billingMode: "PAY_PER_REQUEST",
  /**
   * Record heads of one collection, newest first (query backwards): same partition key as the table, sorted by
   * the head's `newest` attribute (records/keys.ts; domain/core/record-newest.ts). Sparse: parts, watermarks and run items lack it.
   */
  newestIndex: { name: "records-newest-keys", sortKey: { name: "newest", type: "S" }, projection: "KEYS_ONLY" },
  /**
   * The index before it, which projected ALL: every write of a head (a lineage update, a record over 1 KB) was
   * also an index write of the head's whole size. Deleted where it is found (ensureTable; lib/record-table.ts for
   * a deployed table, in a second deploy: docs/operations.md).
   */
  legacyNewestIndexName: "records-newest",
} as const;

/** Longest wait for a new table to become ACTIVE (DynamoDB Local: immediate; AWS: seconds). */
const TABLE_ACTIVE_TIMEOUT_SECONDS = 300;

export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: RECORD_TABLE.partitionKey.name, AttributeType: RECORD_TABLE.partitionKey.type },
      { AttributeName: RECORD_TABLE.sortKey.name, AttributeType: RECORD_TABLE.sortKey.type },
      { AttributeName: RECORD_TABLE.newestIndex.sortKey.name, AttributeType: RECORD_TABLE.newestIndex.sortKey.type },
    ],
    KeySchema: [
      { AttributeName: RECORD_TABLE.partitionKey.name, KeyType: "HASH" },
      { AttributeName: RECORD_TABLE.sortKey.name, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [newestIndexDefinition()],
    BillingMode: RECORD_TABLE.billingMode,
  };
}

function newestIndexDefinition() {
  return {
    IndexName: RECORD_TABLE.newestIndex.name,
    KeySchema: [
      { AttributeName: RECORD_TABLE.partitionKey.name, KeyType: "HASH" as const },
      { AttributeName: RECORD_TABLE.newestIndex.sortKey.name, KeyType: "RANGE" as const },
    ],
    // Its reader needs the order and the keys only: it reads the heads from the table (../records/newest-heads.ts).
    Projection: { ProjectionType: RECORD_TABLE.newestIndex.projection },
  };
}

/** Creates the table when it does not exist, then waits until it is ACTIVE. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = described.Table?.GlobalSecondaryIndexes ?? [];
    const legacy = indexes.some((index) => index.IndexName === RECORD_TABLE.legacyNewestIndexName);
    // DynamoDB creates or deletes one index per UpdateTable: the old one goes first.
    if (legacy) await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: RECORD_TABLE.legacyNewestIndexName } }] }));
    if (!indexes.some((index) => index.IndexName === RECORD_TABLE.newestIndex.name)) {
      // A data dir from before the newest-first index, or with the one that projected ALL: add it.
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [{ AttributeName: RECORD_TABLE.newestIndex.sortKey.name, AttributeType: RECORD_TABLE.newestIndex.sortKey.type }],
          GlobalSecondaryIndexUpdates: [{ Create: newestIndexDefinition() }],
        }),
      );
    } else if (!legacy && described.Table?.TableStatus === "ACTIVE") return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (createError) {
      // Someone else created it in between: just wait for it.
      if (!(createError instanceof ResourceInUseException)) throw createError;
    }
  }
  await waitUntilTableExists(
    { client, minDelay: 1, maxDelay: 5, maxWaitTime: TABLE_ACTIVE_TIMEOUT_SECONDS },
    { TableName: tableName },
  );
}
