import { hash } from "node:crypto";
import type { Collection, SyncEntity } from "../../../domain/core/entities";
import type { RecordWrite } from "../../../domain/core/ports/record-store";
import { recordNewestValue } from "../../../domain/core/record-newest";
import { SORT_KEY_MAX_BYTES, checkedPartitionKey, utf8Bytes } from "../table/key-limits";

/**
 * Key layout of the single record table (pk S, sk S; see ../table/table-definition.ts).
 * Every key string of the store is built here and nowhere else.
 *
 *   record head     pk = REC#<connectionId>#<collection>#<shard>   sk = <id>
 *   stage head      pk = REC#<connectionId>#stages#00              sk = JSON.stringify([pipelineId, stageId])
 *   record part     pk = PART#<connectionId>#<collection>#<sha256(record sk), base64url>
 *                   sk = <part number, 4 digits: 0001, 0002, ...>
 *   staged part     same pk                                  sk = v#<version>#<part number, 4 digits>
 *   watermark       pk = WM#<connectionId>                  sk = sharded#<entity>
 *
 * - Heads are write-sharded (docs/hot-keys.md): <shard> is recordShard(collection, sk),
 *   two decimal digits 00..recordShards(collection)-1, a hash of the record's
 *   sort key alone, so a page's heads spread over that many partition keys and
 *   an upsert of one key always lands on the same item. Listing a collection
 *   merges its shards by sort key (./dynamodb-record-store.ts). The small full
 *   lists (pipelines, stages, users) are one shard, `#00`: same key form, one
 *   Query to read them.
 * - Upsert by (connection, collection, id): one head per key, replaced by every Put.
 * - Stages are keyed by (connection, pipeline, stage): the JSON array cannot
 *   collide for different pairs (ids may contain any character). A pair whose
 *   JSON form is over DynamoDB's 1024-byte sort key limit (only possible with
 *   very long, heavily escaped ids) uses `#sha256:<hex of that JSON>` instead;
 *   a JSON form always starts with `[`, so the two forms never meet.
 *   The head also keeps the key tuple (`key`) and the stage's `kind`, which is
 *   what getStageKinds reads.
 * - The shard and the collection are the last two `#` segments of a REC pk and
 *   never contain `#`, so `REC#a#b#leads#07` is unambiguous even when a
 *   connection id contains `#`. The unsharded layout's pk (`REC#a#b#leads`,
 *   legacyRecordPartitionKey) ends in a collection, never in digits.
 * - Watermarks of the sharded layout carry `sharded#` in their sort key: the
 *   unsharded release's watermarks (sk = <entity>) read as none, so each
 *   connection's next run re-reads every entity from sync_since into the
 *   shards (docs/hot-keys.md, "Records stored before sharding").
 *   The three prefixes differ at their start, so heads, parts and watermarks
 *   never share a partition: querying a collection's partition sees heads only.
 * - A document over DOC_PART_MAX_BYTES (./record-items.ts) is cut into
 *   chunks: the head keeps chunk 0 in `doc` and the count of further chunks in
 *   `parts`; chunk i (i >= 1) is the part item with sk = pad4(i), in the
 *   record's own part partition. Head and parts are written in one transaction.
 *   A later, smaller version leaves stale parts beyond its count behind; they
 *   are never read (the head's `parts` is authoritative) and are overwritten
 *   when the record grows again.
 * - A document too large for one transaction with its head has its parts
 *   staged (written before the page's transactions) under sk = v#<version>#pad4(i),
 *   where <version> is the sha256 of the document (base64url) and the head's
 *   `parts_version`: nothing reads them until that head commits, the same
 *   content always stages the same items, and the store drops every other
 *   part of the record once the head is committed.
 */

/** Attribute names of the items. */
export const ATTR = {
  pk: "pk",
  sk: "sk",
  /** The canonical document as a JSON string (a head's first chunk, or a part's chunk). */
  doc: "doc",
  /** On a head: number of part items (absent = 0). */
  parts: "parts",
  /** On a head whose parts were staged: the version (sha256 of the document) they are stored under. */
  partsVersion: "parts_version",
  /** On a head: JSON.stringify(RecordWrite.key). */
  key: "key",
  /** On a stage head: the stage kind. */
  kind: "kind",
  /** On a watermark: the ISO-8601 value. */
  value: "value",
  /** On a watermark item: when the entity's last page committed (ISO), its freshness; written by every page. */
  dataAsOf: "data_as_of",
  /** On a watermark item: the hash of the entity's last committed whole listing (./page-transactions.ts). */
  listing: "listing",
  /** On a head: the record's newest-first sort value (recordNewestSortValue); the sort key of RECORD_TABLE.newestIndex. */
  newest: "newest",
  /*
   * On a head: its lineage (core/record-lineage.ts), written by the same
   * Update that stores the record (./page-transactions.ts). Absent on heads
   * written before lineage was kept.
   */
  /** Map { run_id, page, at }: set by the first write only (if_not_exists). */
  firstSeen: "first_seen",
  /** Map { run_id, page, at, source_updated_at }: every write; also what makes a replayed page count once. */
  lastWritten: "last_written",
  /** Number: pages that wrote the record. */
  writes: "writes",
  /** String (ISO): first write with `is_deleted: true`; removed by a write without it. */
  deletedAt: "deleted_at",
  /** String: the audit that last healed the record (RecordWrite.heal.auditId); unlike `healed`, no sync write removes it. */
  healedByAudit: "healed_by_audit",
  /** List of strings: rule ids the last write hit; absent when none. */
  findings: "findings",
  /** On a head an audit wrote: why (map: audit_id, cause, updated_at, watermark, at). A sync's Put of the record drops it. */
  healed: "healed",
  /** On a head the last audit did not find at the source (map: audit_id, at). Never a deletion; the next Put drops it. */
  absent: "absent_in_source",
  /** On a lead head: its entry into its first stage, JSON `[pipeline_id, stage_id, at, source_updated_at]` (./page-history.ts). */
  entered: "entered",
  /** On a transition or change item: the JSON of what it holds. */
  body: "body",
  /** On a change item: when its page committed (ISO), kept from the first attempt. */
  committedAt: "committed_at",
  /** The table's TTL attribute (epoch seconds; lib/record-table.ts TTL_ATTRIBUTE). */
  expiresAt: "expires_at",
} as const;

/**
 * The newest index's sort value of a head: recordNewestValue, `#`, then the
 * record's sort key, so that records of the same time have one defined order
 * (by key) in every shard and the shards merge into one list. A key too long
 * to fit DynamoDB's 1024-byte index key stands in as its sha256.
 * `#` sorts below every character of an ISO date, so the time decides first.
 */
export function recordNewestSortValue(doc: Readonly<Record<string, unknown>>, recordSk: string): string {
  return newestSortValue(recordNewestValue(doc), recordSk);
}

/** recordNewestSortValue from the newest value itself (what a newest-first cursor carries). */
export function newestSortValue(newest: string, recordSk: string): string {
  const value = `${newest}${NEWEST_KEY_SEPARATOR}${recordSk}`;
  return utf8Bytes(value) <= SORT_KEY_MAX_BYTES
    ? value
    : `${newest}${NEWEST_KEY_SEPARATOR}${HASHED_STAGE_PREFIX}${hash("sha256", recordSk, "hex")}`;
}

/** The newest value of a head's newest-index sort value (the part before the separator: dates and "0" hold no `#`). */
export function newestOfSortValue(sortValue: string): string {
  const at = sortValue.indexOf(NEWEST_KEY_SEPARATOR);
  return at < 0 ? sortValue : sortValue.slice(0, at);
}

/**
 * Partition keys the heads of a collection that can be large are spread over.
 * 64: at 100 pages/s of 100 records of 1 KB, a shard takes about 313 WCU/s of
 * a partition's 1,000 (docs/hot-keys.md, the arithmetic).
 */
export const RECORD_SHARDS = 64;
/** A small full list fits one partition: the spec expects tens to low hundreds of rows (docs/hot-keys.md, "Small collections"). */
export const SMALL_COLLECTION_SHARDS = 1;

/**
 * How many shards each collection's heads are spread over: the one source of
 * truth for writers, readers and the purge. Changing a count moves that
 * collection's records: a new layout.
 */
export const RECORD_SHARDS_BY_COLLECTION: Readonly<Record<Collection, number>> = {
  pipelines: SMALL_COLLECTION_SHARDS,
  stages: SMALL_COLLECTION_SHARDS,
  users: SMALL_COLLECTION_SHARDS,
  contacts: RECORD_SHARDS,
  leads: RECORD_SHARDS,
  tasks: RECORD_SHARDS,
  calls: RECORD_SHARDS,
  events: RECORD_SHARDS,
  // Derived from the leads' free-text loss_reason: as many as the leads, at the leads' write rate.
  loss_reasons: RECORD_SHARDS,
};

/** The number of shards of a collection (RECORD_SHARDS_BY_COLLECTION). */
export function recordShards(collection: Collection): number {
  return RECORD_SHARDS_BY_COLLECTION[collection];
}

const RECORD_PREFIX = "REC#";
const PART_PREFIX = "PART#";
const WATERMARK_PREFIX = "WM#";
/** Marks a watermark of the sharded layout (the unsharded one's sort key was the entity alone). */
const WATERMARK_LAYOUT_PREFIX = "sharded#";
const HASHED_STAGE_PREFIX = "#sha256:";
const NEWEST_KEY_SEPARATOR = "#";
const PART_NUMBER_DIGITS = 4;
const STAGED_PART_PREFIX = "v#";
const SHARD_DIGITS = 2;

/** The shard of a record: the first 32 bits of sha256(sort key), mod the collection's shard count. Stable across releases and processes. */
export function recordShard(collection: Collection, recordSk: string): number {
  return hash("sha256", recordSk, "buffer").readUInt32BE(0) % recordShards(collection);
}

/** The partition key of one shard of a collection. */
export function recordShardPartitionKey(connectionId: string, collection: Collection, shard: number): string {
  const shards = recordShards(collection);
  if (!Number.isInteger(shard) || shard < 0 || shard >= shards) {
    throw new RangeError(`${collection} shard must be an integer from 0 to ${shards - 1}; got ${shard}`);
  }
  const suffix = String(shard).padStart(SHARD_DIGITS, "0");
  return checkedPartitionKey(`${RECORD_PREFIX}${requireConnectionId(connectionId)}#${collection}#${suffix}`);
}

/** The partition key of a record's head: the shard of its sort key. */
export function recordPartitionKey(connectionId: string, collection: Collection, recordSk: string): string {
  return recordShardPartitionKey(connectionId, collection, recordShard(collection, recordSk));
}

/** The collection of a record head's partition key (its next-to-last `#` segment: ids never reach the pk). */
export function recordPartitionCollection(pk: string): string | undefined {
  if (!pk.startsWith(RECORD_PREFIX)) return undefined;
  const segments = pk.split("#");
  return segments.length >= 4 ? segments[segments.length - 2] : undefined;
}

/** Every shard's partition key of a collection, shard 0 first. */
export function recordShardPartitionKeys(connectionId: string, collection: Collection): string[] {
  return Array.from({ length: recordShards(collection) }, (_, shard) => recordShardPartitionKey(connectionId, collection, shard));
}

/** The one partition of a collection before write sharding: read by nothing now, deleted by the purge of a deleted connection. */
export function legacyRecordPartitionKey(connectionId: string, collection: Collection): string {
  return checkedPartitionKey(`${RECORD_PREFIX}${requireConnectionId(connectionId)}#${collection}`);
}

/** The sort key of a record head; throws for a key DynamoDB cannot store (validation should have caught it). */
export function recordSortKey(write: Pick<RecordWrite, "collection" | "key">): string {
  const { collection, key } = write;
  if (collection === "stages") {
    const [pipelineId, stageId] = key;
    if (key.length !== 2 || !pipelineId || !stageId) {
      throw new TypeError(`a stage is keyed by [pipelineId, stageId]; got ${JSON.stringify(key)}`);
    }
    const json = JSON.stringify([pipelineId, stageId]);
    return utf8Bytes(json) <= SORT_KEY_MAX_BYTES
      ? json
      : `${HASHED_STAGE_PREFIX}${hash("sha256", json, "hex")}`;
  }
  const [id] = key;
  if (key.length !== 1 || !id) {
    throw new TypeError(`a ${collection} record is keyed by [id]; got ${JSON.stringify(key)}`);
  }
  if (utf8Bytes(id) > SORT_KEY_MAX_BYTES) {
    throw new TypeError(`${collection} id is over ${SORT_KEY_MAX_BYTES} UTF-8 bytes: ${id.slice(0, 40)}...`);
  }
  return id;
}

export function partPartitionKey(connectionId: string, collection: Collection, recordSk: string): string {
  const digest = hash("sha256", recordSk, "base64url");
  return checkedPartitionKey(`${PART_PREFIX}${requireConnectionId(connectionId)}#${collection}#${digest}`);
}

/** The largest part number the 4-digit sort key holds: 9,999 parts of 350 KB, far above a 16 MiB source body. */
export const MAX_PART_NUMBER = 10 ** PART_NUMBER_DIGITS - 1;

/** Part numbers start at 1 (chunk 0 is on the head); a staged part carries its version. */
export function partSortKey(partNumber: number, version?: string): string {
  const number = String(partNumber).padStart(PART_NUMBER_DIGITS, "0");
  return version === undefined ? number : `${stagedPartPrefix(version)}${number}`;
}

/** The sort key prefix of every staged part of one version. */
export function stagedPartPrefix(version: string): string {
  return `${STAGED_PART_PREFIX}${version}#`;
}

/*
 * Stage history and the change feed (docs/history-feed-webhooks.md):
 *
 *   transition   pk = HIST#<connectionId>#<shard of the lead id, as the leads'>   sk = <sha256(lead id), base64url>#<at>#<o|r>#<discriminator>
 *   change       pk = CHG#<connectionId>                                          sk = <commit order key>#<group>#<hash of its entries>
 *
 * A lead's transitions share a fixed-length prefix (any id, any length), in
 * time order under it. A change item's sort key orders commits: the run id's
 * time stamp, the run id, the entity's place in the sync order, the page (one
 * run per connection at a time, its pages one after another), so a reader past
 * a key never misses a later commit, and a replayed page writes the same keys.
 */
const HISTORY_PREFIX = "HIST#";
const CHANGE_PREFIX = "CHG#";

export function historyShardPartitionKeys(connectionId: string): string[] {
  return Array.from({ length: RECORD_SHARDS }, (_, shard) => checkedPartitionKey(`${HISTORY_PREFIX}${requireConnectionId(connectionId)}#${String(shard).padStart(SHARD_DIGITS, "0")}`));
}

export function historyPartitionKey(connectionId: string, leadId: string): string {
  return historyShardPartitionKeys(connectionId)[recordShard("leads", leadId)]!;
}

/** Every transition of one lead starts with this. */
export function historyLeadPrefix(leadId: string): string {
  return `${hash("sha256", leadId, "base64url")}#`;
}

export function historySortKey(leadId: string, at: string, source: "o" | "r", discriminator: string): string {
  return `${historyLeadPrefix(leadId)}${at}#${source}#${hash("sha256", discriminator, "base64url").slice(0, 16)}`;
}

export function changePartitionKey(connectionId: string): string {
  return checkedPartitionKey(`${CHANGE_PREFIX}${requireConnectionId(connectionId)}`);
}

export function watermarkPartitionKey(connectionId: string): string {
  return checkedPartitionKey(`${WATERMARK_PREFIX}${requireConnectionId(connectionId)}`);
}

export function watermarkSortKey(entity: SyncEntity): string {
  return `${WATERMARK_LAYOUT_PREFIX}${entity}`;
}

function requireConnectionId(connectionId: string): string {
  if (connectionId.length === 0) throw new TypeError("connectionId must not be empty");
  return connectionId;
}
