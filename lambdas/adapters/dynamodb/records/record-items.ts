import { hash } from "node:crypto";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { STAGE_KINDS, type StageKind } from "../../../domain/core/entities";
import { RecordTooLargeError } from "../../../domain/core/errors";
import type { HealMark, RecordWrite } from "../../../domain/core/ports/record-store";
import { ATTR, MAX_PART_NUMBER, partPartitionKey, partSortKey, recordNewestSortValue, recordPartitionKey, recordSortKey } from "./keys";
import { utf8Bytes } from "../table/key-limits";

/**
 * The items one record is stored as (pure: no I/O), and DynamoDB's caps that
 * shape them. A document is a JSON string; over DOC_PART_MAX_BYTES it is cut
 * into a head and parts. A record whose head and parts fit one transaction is
 * written with them in it (./page-transactions.ts). A larger one (a task text
 * of 4 MB: the spec never cuts it) has its parts staged first, under a
 * version of its content that only its head names, so they stay invisible
 * until the page's transaction that writes the head commits
 * (docs/design.md, "Page transactions on DynamoDB").
 */

/** DynamoDB: at most 100 actions in one TransactWriteItems. */
export const TRANSACTION_MAX_ACTIONS = 100;
/** DynamoDB: at most 4 MB of items in one transaction (read as 4,000,000 bytes to be safe). */
export const TRANSACTION_MAX_BYTES = 4_000_000;
/** What the planner packs into one transaction: the cap minus a margin for estimation error. */
export const TRANSACTION_BYTE_BUDGET = TRANSACTION_MAX_BYTES - 200_000;
/** DynamoDB: at most 400 KB per item. */
export const ITEM_MAX_BYTES = 400 * 1024;
/** A document over this many UTF-8 bytes is cut into chunks of at most this size (head + parts). */
export const DOC_PART_MAX_BYTES = 350_000;
/** Added to every item's estimate for what the estimate does not see. */
export const ITEM_OVERHEAD_BYTES = 100;

type Item = Record<string, AttributeValue>;

/** The items one record is stored as. */
export interface RecordItems {
  readonly write: RecordWrite;
  /** Written in one transaction of the page: the head, then the parts of a record that fits one. */
  readonly items: readonly Item[];
  /** Estimated bytes of `items`. */
  readonly bytes: number;
  /** Written before the page's transactions, under the version its head names: the parts of a record too large for one. */
  readonly staged: readonly Item[];
}

/** The head and parts of one record; parts that cannot share a transaction with their head are staged. */
export function recordItems(connectionId: string, write: RecordWrite): RecordItems {
  const sk = recordSortKey(write);
  const json = JSON.stringify(write.doc);
  const chunks = splitUtf8(json, DOC_PART_MAX_BYTES);

  const head: Item = {
    [ATTR.pk]: { S: recordPartitionKey(connectionId, write.collection, sk) },
    [ATTR.sk]: { S: sk },
    [ATTR.key]: { S: JSON.stringify(write.key) },
    [ATTR.doc]: { S: chunks[0] ?? "" },
    [ATTR.newest]: { S: recordNewestSortValue(write.doc, sk) },
  };
  if (chunks.length > 1) head[ATTR.parts] = { N: String(chunks.length - 1) };
  const kind = write.collection === "stages" ? stageKind(write.doc) : undefined;
  if (kind !== undefined) head[ATTR.kind] = { S: kind };
  if (write.heal !== undefined) head[ATTR.healed] = healMarkAttribute(write.heal);

  const partPk = partPartitionKey(connectionId, write.collection, sk);
  const parts = (version?: string): Item[] =>
    chunks.slice(1).map((chunk, index) => ({ [ATTR.pk]: { S: partPk }, [ATTR.sk]: { S: partSortKey(index + 1, version) }, [ATTR.doc]: { S: chunk } }));

  const inline = [head, ...parts()];
  const sizes = inline.map(estimateItemBytes);
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  if (inline.length <= TRANSACTION_MAX_ACTIONS && bytes <= TRANSACTION_BYTE_BUDGET) return { write, items: inline, bytes, staged: [] };

  // Too large for one transaction: the parts go first, under a version of the content that only this head names.
  if (chunks.length - 1 > MAX_PART_NUMBER) {
    throw new RecordTooLargeError(
      `${write.collection} record is ${utf8Bytes(json)} bytes, more than ${MAX_PART_NUMBER} parts of ${DOC_PART_MAX_BYTES} bytes; id ${write.key.join(" / ")}`,
      // A stage's id alone does not find it: only a record of the entity itself is named.
      write.key.length === 1 ? { record: { id: write.key[0]!, field: null } } : undefined,
    );
  }
  const version = hash("sha256", json, "base64url");
  head[ATTR.partsVersion] = { S: version };
  return { write, items: [head], bytes: estimateItemBytes(head), staged: parts(version) };
}

/**
 * Size of an item as DynamoDB counts it, estimated from above: UTF-8 bytes of
 * attribute names and string values, number strings plus one, and a fixed
 * overhead per item.
 */
export function estimateItemBytes(item: Item): number {
  let bytes = ITEM_OVERHEAD_BYTES;
  for (const [name, value] of Object.entries(item)) {
    bytes += utf8Bytes(name);
    if (value.S !== undefined) bytes += utf8Bytes(value.S);
    else if (value.N !== undefined) bytes += value.N.length + 1;
    // A map (an audit's heal mark): its JSON form is longer than DynamoDB's count of it, so an estimate from above.
    else if (value.M !== undefined) bytes += utf8Bytes(JSON.stringify(value.M));
    else throw new TypeError(`estimateItemBytes: unexpected attribute type of ${name}`);
  }
  return bytes;
}

/**
 * Cuts text into chunks of at most maxBytes UTF-8 bytes, only between code
 * points (a chunk never ends inside a multi-byte character), so that joining
 * the chunks gives the text back exactly. Expects well-formed text, as
 * JSON.stringify produces.
 */
export function splitUtf8(text: string, maxBytes: number): string[] {
  // A chunk must hold the longest UTF-8 character (4 bytes).
  if (!Number.isInteger(maxBytes) || maxBytes < 4) throw new RangeError(`splitUtf8: maxBytes must be an integer >= 4`);
  // Most documents fit one item: count their bytes without copying them.
  if (utf8Bytes(text) <= maxBytes) return [text];
  const bytes = Buffer.from(text, "utf8");
  const chunks: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + maxBytes, bytes.length);
    // Step back over continuation bytes (10xxxxxx) to the start of a character.
    while (end < bytes.length && end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
    chunks.push(bytes.toString("utf8", start, end));
    start = end;
  }
  return chunks;
}

function stageKind(doc: Readonly<Record<string, unknown>>): StageKind | undefined {
  const kind = doc["kind"];
  return typeof kind === "string" && (STAGE_KINDS as readonly string[]).includes(kind) ? (kind as StageKind) : undefined;
}

/** The heal mark on a head, as a map (explain reads it). */
function healMarkAttribute(heal: HealMark): AttributeValue {
  return {
    M: {
      audit_id: { S: heal.auditId },
      cause: { S: heal.cause },
      updated_at: heal.updatedAt === null ? { NULL: true } : { S: heal.updatedAt },
      watermark: heal.watermark === null ? { NULL: true } : { S: heal.watermark },
      at: { S: heal.at },
    },
  };
}
