import type { AttributeValue, TransactWriteItem } from "@aws-sdk/client-dynamodb";
import { ATTR } from "../../lambdas/adapters/dynamodb/records/keys";

type Item = Record<string, AttributeValue>;

/** Attributes of a record head that are its lineage, not its content (lambdas/adapters/dynamodb/records/keys.ts). */
const LINEAGE_ATTRS: readonly string[] = [ATTR.firstSeen, ATTR.lastWritten, ATTR.writes, ATTR.deletedAt, ATTR.healedByAudit, ATTR.findings];

/**
 * The item a planned action stores: a Put's item, or for a record head's
 * Update (lambdas/adapters/dynamodb/records/page-transactions.ts headUpdate) its key and the
 * content it sets, which is what a Put of the head would have held. Undefined
 * for any other action (fence, progress, listing hash).
 */
export function writtenItem(action: TransactWriteItem): Item | undefined {
  if (action.Put) return action.Put.Item;
  const update = action.Update;
  const values = update?.ExpressionAttributeValues;
  if (update === undefined || values?.[":lastWritten"] === undefined) return undefined;
  const item: Item = { ...update.Key };
  for (const attr of Object.values(update.ExpressionAttributeNames ?? {})) {
    const value = values[`:${attr}`];
    if (value !== undefined && !LINEAGE_ATTRS.includes(attr)) item[attr] = value;
  }
  return item;
}

/** A stored item without its lineage attributes: the record's content as stored. */
export function withoutLineage(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !LINEAGE_ATTRS.includes(name)));
}
