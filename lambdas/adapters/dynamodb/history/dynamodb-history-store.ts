import { GetItemCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import * as v from "valibot";
import { StageTransitionSchema, type StageTransition } from "../../../domain/core/lead-history";
import type { HistoryStore } from "../../../domain/core/ports/history-store";
import { partitionQuery, queryAll } from "../table/query-all";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { ATTR, historyLeadPrefix, historyPartitionKey, historyShardPartitionKeys, recordPartitionKey, recordShardPartitionKeys, recordSortKey } from "../records/keys";
import { enteredTransition } from "../records/page-history";

type Item = Record<string, AttributeValue>;

/**
 * Reads the stage history the page transactions write (../records/page-history.ts):
 * a lead's entry from its head (`entered`, with the run and time of its first
 * sight from its lineage), its moves from its transitions' partition.
 */
export class DynamoDbHistoryStore extends DynamoDbTableAdapter implements HistoryStore {
  async leadTransitions(connectionId: string, leadId: string): Promise<StageTransition[]> {
    const sk = recordSortKey({ collection: "leads", key: [leadId] });
    const [head, moves] = await Promise.all([
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [ATTR.pk]: { S: recordPartitionKey(connectionId, "leads", sk) }, [ATTR.sk]: { S: sk } },
          ProjectionExpression: "#sk, #entered, #firstSeen",
          ExpressionAttributeNames: { "#sk": ATTR.sk, "#entered": ATTR.entered, "#firstSeen": ATTR.firstSeen },
          ConsistentRead: true,
        }),
      ),
      queryAll(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
        ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
        ExpressionAttributeValues: { ":pk": { S: historyPartitionKey(connectionId, leadId) }, ":prefix": { S: historyLeadPrefix(leadId) } },
        ConsistentRead: true,
      }),
    ]);
    const entry = head.Item === undefined ? null : entryOf(head.Item);
    return [...(entry === null ? [] : [entry]), ...moves.map(parseTransition)];
  }

  async allTransitions(connectionId: string): Promise<StageTransition[]> {
    const [moves, heads] = await Promise.all([
      Promise.all(historyShardPartitionKeys(connectionId).map((pk) => this.queryPartition(pk, [ATTR.body]))),
      Promise.all(recordShardPartitionKeys(connectionId, "leads").map((pk) => this.queryPartition(pk, [ATTR.sk, ATTR.entered, ATTR.firstSeen]))),
    ]);
    const entries = heads.flat().flatMap((item) => {
      const entry = entryOf(item);
      return entry === null ? [] : [entry];
    });
    return [...entries, ...moves.flat().map(parseTransition)];
  }

  private queryPartition(pk: string, attributes: readonly string[]): Promise<Item[]> {
    return queryAll(this.client, partitionQuery(this.tableName, pk, attributes));
  }
}

function entryOf(head: Item): StageTransition | null {
  const entered = head[ATTR.entered]?.S;
  const leadId = head[ATTR.sk]?.S;
  if (entered === undefined || leadId === undefined) return null;
  const seen = head[ATTR.firstSeen]?.M;
  const firstSeen = seen?.["run_id"]?.S !== undefined && seen["at"]?.S !== undefined ? { run_id: seen["run_id"].S, at: seen["at"].S } : null;
  return enteredTransition(leadId, entered, firstSeen);
}

function parseTransition(item: Item): StageTransition {
  return v.parse(StageTransitionSchema, JSON.parse(item[ATTR.body]?.S ?? "null"));
}
