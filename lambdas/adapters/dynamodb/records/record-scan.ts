import type { Collection } from "../../../domain/core/entities";
import type { RecordStore } from "../../../domain/core/ports/record-store";
import type { RecordScan } from "../../../domain/core/ports/record-scan";
import { DynamoDbTableAdapter, type DynamoDbTableOptions } from "../table/dynamodb-table-adapter";
import { RECORD_TABLE } from "../table/table-definition";
import { ATTR, recordShardPartitionKeys } from "./keys";
import { utf8Bytes } from "../table/key-limits";
import { queryPages } from "../table/query-all";
import { readNewestHeads } from "./newest-heads";

/**
 * RecordScan on the single table: every shard of the collection read side by
 * side, a Query page (1 MB) at a time, no merge (./keys.ts). With `since`, the
 * newest index instead (sort value at or after it; it lists keys, the heads are
 * read from the table, ./newest-heads.ts). A record split into parts
 * (rare: over 350 KB) is read whole through the record store.
 */
export class DynamoDbRecordScan extends DynamoDbTableAdapter implements RecordScan {
  constructor(
    options: DynamoDbTableOptions,
    private readonly records: Pick<RecordStore, "getRecord">,
  ) {
    super(options);
  }

  async scan(
    connectionId: string,
    collection: Collection,
    visit: (docs: readonly Readonly<Record<string, unknown>>[]) => void,
    options: { readonly since?: string; readonly stop?: () => boolean } = {},
  ): Promise<{ records: number; bytes: number }> {
    let records = 0;
    let bytes = 0;
    await Promise.all(
      recordShardPartitionKeys(connectionId, collection).map(async (pk) => {
        const pages = queryPages(this.client, {
          TableName: this.tableName,
          KeyConditionExpression: options.since === undefined ? "#pk = :pk" : "#pk = :pk AND #newest >= :since",
          ExpressionAttributeNames: { "#pk": ATTR.pk, ...(options.since === undefined ? {} : { "#newest": ATTR.newest }) },
          ExpressionAttributeValues: { ":pk": { S: pk }, ...(options.since === undefined ? {} : { ":since": { S: options.since } }) },
          ...(options.since === undefined ? { ConsistentRead: true } : { IndexName: RECORD_TABLE.newestIndex.name }),
        });
        // Checked before each page is asked for: queryPages sends the next Query only when the loop asks again.
        if (options.stop?.() === true) return;
        for await (const page of pages) {
          // The newest-first index lists keys only: the heads themselves come from the table.
          const items = options.since === undefined ? page : await readNewestHeads(this.client, this.tableName, page);
          const docs: Readonly<Record<string, unknown>>[] = [];
          for (const item of items) {
            const text = item[ATTR.doc]?.S;
            if (text === undefined) continue;
            bytes += utf8Bytes(text);
            if (Number(item[ATTR.parts]?.N ?? "0") > 0) {
              const key = JSON.parse(item[ATTR.key]?.S ?? "[]") as [string] | [string, string];
              const whole = (await this.records.getRecord(connectionId, collection, key)).record;
              if (whole !== null) docs.push(whole);
            } else docs.push(JSON.parse(text) as Record<string, unknown>);
          }
          records += docs.length;
          visit(docs);
          if (options.stop?.() === true) return;
        }
      }),
    );
    return { records, bytes };
  }
}
