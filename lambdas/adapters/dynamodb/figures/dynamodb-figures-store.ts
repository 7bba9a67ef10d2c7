import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import * as v from "valibot";
import { SYNC_ENTITIES, type Collection } from "../../../domain/core/entities";
import { ConnectionFiguresSchema, type ConnectionFigures } from "../../../domain/figures/connection-figures";
import type { FiguresStore } from "../../../domain/figures/figures-store";
import type { RecordScan } from "../../../domain/core/ports/record-scan";
import { ATTR, recordShardPartitionKeys, watermarkPartitionKey, watermarkSortKey } from "../records/keys";
import { DynamoDbTableAdapter, type DynamoDbTableOptions } from "../table/dynamodb-table-adapter";
import { queryAll, queryCounts } from "../table/query-all";
import { FIGURES_ATTR, FIGURES_SORT_KEY, figuresPartitionKey } from "./figures-keys";

/**
 * FiguresStore on the single table (key layout: ./figures-keys.ts); counts with Select COUNT over a collection's
 * shards, and reads the records through the record scan it is given.
 */
export class DynamoDbFiguresStore extends DynamoDbTableAdapter implements FiguresStore {
  readonly scan: RecordScan["scan"];

  constructor(options: DynamoDbTableOptions, records: RecordScan) {
    super(options);
    this.scan = records.scan.bind(records);
  }

  async get(connectionId: string): Promise<ConnectionFigures | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [FIGURES_ATTR.pk]: { S: figuresPartitionKey(connectionId) }, [FIGURES_ATTR.sk]: { S: FIGURES_SORT_KEY } },
        ConsistentRead: true,
      }),
    );
    const doc = out.Item?.[FIGURES_ATTR.doc]?.S;
    if (doc === undefined) return null;
    // Figures of an older shape are no figures: the next run's end (or the next request) computes them again.
    const parsed = v.safeParse(ConnectionFiguresSchema, JSON.parse(doc));
    return parsed.success ? parsed.output : null;
  }

  async put(connectionId: string, figures: ConnectionFigures): Promise<void> {
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [FIGURES_ATTR.pk]: { S: figuresPartitionKey(connectionId) },
          [FIGURES_ATTR.sk]: { S: FIGURES_SORT_KEY },
          [FIGURES_ATTR.doc]: { S: JSON.stringify(v.parse(ConnectionFiguresSchema, figures)) },
        },
      }),
    );
  }

  /** One Query of the connection's watermark partition: each entity's watermark and whole listing's hash. */
  async versions(connectionId: string): Promise<Readonly<Record<string, string>>> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": ATTR.pk },
      ExpressionAttributeValues: { ":pk": { S: watermarkPartitionKey(connectionId) } },
      ConsistentRead: true,
    });
    const bySortKey = new Map(items.map((item) => [item[ATTR.sk]?.S, item]));
    return Object.fromEntries(
      SYNC_ENTITIES.map((entity) => {
        const item = bySortKey.get(watermarkSortKey(entity));
        return [entity, JSON.stringify([item?.[ATTR.value]?.S ?? null, item?.[ATTR.listing]?.S ?? null])];
      }),
    );
  }

  async count(connectionId: string, collection: Collection): Promise<number> {
    const shards = await Promise.all(recordShardPartitionKeys(connectionId, collection).map((pk) => this.countPartition(pk)));
    return shards.reduce((sum, count) => sum + count, 0);
  }

  /** Heads only: parts and watermarks live under other prefixes (../records/keys.ts). */
  private async countPartition(pk: string): Promise<number> {
    let count = 0;
    // Select COUNT pages hold no items: each page's count is its Count, read through the one paging loop.
    for await (const page of queryCounts(this.client, { TableName: this.tableName, KeyConditionExpression: "#pk = :pk", ExpressionAttributeNames: { "#pk": ATTR.pk }, ExpressionAttributeValues: { ":pk": { S: pk } }, Select: "COUNT" })) count += page;
    return count;
  }
}
