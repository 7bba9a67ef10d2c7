import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import * as v from "valibot";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { PreflightRunSchema, type PreflightRun, type PreflightStore } from "../../../domain/preflight/preflight-run";
import { PREFLIGHT_ATTR, PREFLIGHT_RETENTION_DAYS, preflightPartitionKey, preflightSortKey } from "./preflight-keys";

/** PreflightStore on the single table (key layout: ./preflight-keys.ts). */
export class DynamoDbPreflightStore extends DynamoDbTableAdapter implements PreflightStore {
  async put(run: PreflightRun): Promise<void> {
    const expiresAt = Math.floor(Date.parse(run.started_at) / 1000) + PREFLIGHT_RETENTION_DAYS * 86_400;
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          [PREFLIGHT_ATTR.pk]: { S: preflightPartitionKey(run.connection_id) },
          [PREFLIGHT_ATTR.sk]: { S: preflightSortKey(run.id) },
          [PREFLIGHT_ATTR.doc]: { S: JSON.stringify(v.parse(PreflightRunSchema, run)) },
          [PREFLIGHT_ATTR.expiresAt]: { N: String(expiresAt) },
        },
      }),
    );
  }

  async get(connectionId: string, id: string): Promise<PreflightRun | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: { [PREFLIGHT_ATTR.pk]: { S: preflightPartitionKey(connectionId) }, [PREFLIGHT_ATTR.sk]: { S: preflightSortKey(id) } },
        ConsistentRead: true,
      }),
    );
    const doc = out.Item?.[PREFLIGHT_ATTR.doc]?.S;
    return doc === undefined ? null : v.parse(PreflightRunSchema, JSON.parse(doc));
  }
}
