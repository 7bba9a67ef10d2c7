import { BatchGetItemCommand, type BatchGetItemCommandOutput, type AttributeValue, type KeysAndAttributes } from "@aws-sdk/client-dynamodb";
import { stageOf, type StoredStage } from "../../../domain/core/lead-history";
import type { PageWrite } from "../../../domain/core/ports/record-store";
import { ATTR, recordPartitionKey, recordSortKey } from "./keys";
import { readRecordDoc, type PartsTable } from "./record-parts";
import type { StoredStages } from "./page-history";

/** DynamoDB: at most 100 keys in one BatchGetItem (a page holds at most 100 leads: one request). */
const BATCH_GET_MAX = 100;
/** Rounds of BatchGetItem for the keys DynamoDB left unprocessed. */
const BATCH_GET_ATTEMPTS = 8;

/**
 * The stage each lead of the page stands in before the page writes it: one
 * strong BatchGetItem of the leads' heads (1 RRU per head under 4 KB). Only
 * this run writes the connection's records until its page commits (the lock
 * fences every other), so what it reads is what the page replaces; a replayed
 * page reads the stage it already wrote and records no transition again.
 * Undefined for a page without leads.
 */
export async function readStoredStages(table: PartsTable, write: PageWrite): Promise<StoredStages | undefined> {
  const leads = pageLeadIds(write);
  if (leads.length === 0) return undefined;
  // Read ahead by the page task (readLeadStages) when it holds every lead of the page.
  if (write.leadStages !== undefined && leads.every((id) => write.leadStages!.has(id))) return write.leadStages;
  return readLeadStages(table, write.connectionId, leads);
}

/** The distinct lead ids a page writes. */
function pageLeadIds(write: PageWrite): string[] {
  return [...new Set(write.records.filter((record) => record.collection === "leads").map((record) => record.key[0]!))];
}

/** The stored stage of each lead (null: not stored), one strong BatchGetItem per 100 ids. */
export async function readLeadStages(table: PartsTable, connectionId: string, ids: readonly string[]): Promise<StoredStages> {
  const leads = [...new Set(ids)];
  const stages = new Map<string, StoredStage | null>(leads.map((id) => [id, null]));
  for (let start = 0; start < leads.length; start += BATCH_GET_MAX) {
    const keys = leads.slice(start, start + BATCH_GET_MAX).map((id) => {
      const sk = recordSortKey({ collection: "leads", key: [id] });
      return { [ATTR.pk]: { S: recordPartitionKey(connectionId, "leads", sk) }, [ATTR.sk]: { S: sk } };
    });
    for (const head of await batchGet(table, keys)) {
      const doc = await readRecordDoc(table, connectionId, "leads", head);
      const id = head[ATTR.sk]?.S;
      if (doc !== null && id !== undefined) stages.set(id, stageOf(JSON.parse(doc) as Record<string, unknown>));
    }
  }
  return stages;
}

async function batchGet(table: PartsTable, keys: Record<string, AttributeValue>[]): Promise<Record<string, AttributeValue>[]> {
  const found: Record<string, AttributeValue>[] = [];
  let request: KeysAndAttributes | undefined = {
    Keys: keys,
    ConsistentRead: true,
    ProjectionExpression: "#pk, #sk, #doc, #parts, #version, #key",
    ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk, "#doc": ATTR.doc, "#parts": ATTR.parts, "#version": ATTR.partsVersion, "#key": ATTR.key },
  };
  for (let attempt = 1; request !== undefined && (request.Keys?.length ?? 0) > 0; attempt += 1) {
    if (attempt > BATCH_GET_ATTEMPTS) throw new Error(`reading the page's ${keys.length} lead heads: DynamoDB kept keys unprocessed`);
    const out: BatchGetItemCommandOutput = await table.client.send(new BatchGetItemCommand({ RequestItems: { [table.tableName]: request } }));
    found.push(...(out.Responses?.[table.tableName] ?? []));
    request = out.UnprocessedKeys?.[table.tableName];
  }
  return found;
}
