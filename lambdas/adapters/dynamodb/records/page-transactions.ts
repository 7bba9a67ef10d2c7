import { createHash } from "node:crypto";
import type { AttributeValue, TransactWriteItem, TransactWriteItemsCommandInput } from "@aws-sdk/client-dynamodb";
import { headUpdate } from "./head-writes";
import type { PageRun, PageWrite, RecordWrite } from "../../../domain/core/ports/record-store";
import { pageFence } from "../runs/run-item/progress-writes";
import { ATTR, watermarkPartitionKey, watermarkSortKey } from "./keys";
import { utf8Bytes } from "../table/key-limits";
import { TRANSACTION_BYTE_BUDGET, TRANSACTION_MAX_ACTIONS, estimateItemBytes, recordItems, type RecordItems } from "./record-items";
import { changeBytes, changeEntry, changeUpdate, recordHistory, withEntered, type StoredStages } from "./page-history";
import type { ChangeEntry } from "../../../domain/core/change-feed";

/**
 * How one validated page becomes DynamoDB transactions. Pure: no I/O.
 *
 * The spec wants a page written "as one transaction" with its watermark.
 * DynamoDB caps a transaction at 100 actions and 4 MB, so a page of 100
 * leads plus its watermark (plus the loss reasons they derive, or a
 * /pipelines page with hundreds of stages) cannot be one transaction. The
 * guarantees the spec's rule exists for are kept this way:
 *
 * 1. Validation happens before commitPage: a malformed record fails the page
 *    before anything is written (preparePage), and so does a record that
 *    cannot be stored (planPageTransactions throws before the first
 *    transaction is sent).
 * 2. Records are written in the page's order (loss reasons before the leads
 *    that point at them). A record and all its parts are always in the same
 *    transaction, so a record is never half written; a record too large for
 *    one has its parts staged in transactions of their own before any other,
 *    under a version only its head names (./record-items.ts), so it too
 *    appears whole, when its head commits. A record's head is an
 *    Update that sets its whole content (what a Put would write) and its
 *    lineage (core/record-lineage.ts) in the same action: no extra write or
 *    read per record. Its condition keeps the counts exact with no read
 *    (./head-writes.ts): `writes` once per (run, page), and the run's
 *    `records` once per record, however many of the run's pages send it.
 * 3. The watermark Put is in the LAST transaction, after every record of the
 *    page; it is never ahead of committed records. That transaction also
 *    extends the run's lease and counts the page in the run summary, once.
 *    Every transaction checks that the run still holds the connection's lock.
 * 4. A crash between transactions leaves some of the page's records written
 *    and the watermark unmoved. The next attempt (state machine retry or next
 *    run) re-fetches the page from the old watermark and replays it: the
 *    writes set the same items again (counting each record's write once), so
 *    the replay is harmless and ends with the page complete and the watermark moved.
 * 5. An unchanged whole listing is not rewritten (listingPlan below): page 1
 *    without a next page is the entity's whole listing at its updated_since
 *    (/pipelines and /users every run; an idle incremental entity's re-read
 *    margin). The hash of the exact items it would write is kept on the
 *    entity's watermark item, set in the transaction that commits the last of
 *    them; a page 1 whose hash equals the stored one writes no record items.
 *    Any other page 1 of the entity replaces or removes the hash, a page 1
 *    written in several transactions removes it in the first, and a reset
 *    (which deletes the watermark items) or the purge drops it: a stored hash
 *    always names the records its entity's last commit left in the table.
 */

/** Where a page's commit can be refused, by index in every transaction of the plan. */
export const LOCK_ACTION_INDEX = 0;
/** In the last transaction only: the run summary's progress update. */
export const PROGRESS_ACTION_INDEX = 1;

/**
 * Plans a page into the TransactWriteItems inputs to send, in order. Throws
 * (RecordTooLargeError, or TypeError for an unusable key) before returning
 * anything, so a page that cannot be stored writes nothing.
 *
 * Every transaction starts with the run's fence on the connection's lock
 * (this run holds it, and its watermarks were not reset under it), so a run
 * that lost its lock writes nothing at all. The last transaction also carries
 * the watermark, the lock's new lease and the run summary's progress for this
 * page, counted only when the page number is above the last one counted, so a
 * page replayed after it committed is refused there and counts once.
 */
export function planPageTransactions(
  tableName: string,
  write: PageWrite,
  /** The hash stored on the entity's watermark item (read by the store for a page 1 with a listing); null: none. */
  storedListing: string | null = null,
): TransactWriteItemsCommandInput[] {
  return planPage(tableName, write, storedListing).transactions;
}

/** A page's transactions, and the records whose parts they stage. */
export interface PagePlan {
  /** In order: the staged parts' transactions, the records', the closing one. */
  readonly transactions: TransactWriteItemsCommandInput[];
  /** Once the page has committed, every part of these records but their staged version's is stale. */
  readonly staged: readonly StagedRecord[];
}

export interface StagedRecord {
  /** The record's part partition. */
  readonly partitionKey: string;
  /** The version its head names (ATTR.partsVersion). */
  readonly version: string;
}

/** planPageTransactions, with the records whose parts it stages. */
export function planPage(tableName: string, write: PageWrite, storedListing: string | null = null, stored?: StoredStages): PagePlan {
  const all = distinctRecords(write.records).map((record) => recordItems(write.connectionId, record));
  const listing = listingPlan(write, all, storedListing);
  const records = listing.unchanged ? [] : all;
  const fence = pageFence(tableName, write.connectionId, write.run);
  const staging = packStaged(tableName, records, fence.check);
  const entityState = entityStateAction(tableName, write, listing);
  const closing: TransactWriteItem[] = [{ Update: fence.progress }, ...(entityState === undefined ? [] : [entityState])];
  const closingBytes = closing.length * FENCE_BYTES;

  // Every transaction keeps one action for the lock and one for its change item (./page-history.ts); the first one more when it must drop a stale listing hash.
  const maxActions = TRANSACTION_MAX_ACTIONS - 2;
  const groups: Group[] = [];
  const fresh = (): Group => ({ puts: [], bytes: FENCE_BYTES + CHANGE_ITEM_BYTES, entries: [] });
  let current = fresh();
  if (listing.dropFirst) current.puts.push({ Update: dropListing(tableName, write) });
  for (const record of records) {
    const history = recordHistory(tableName, write.connectionId, record.write, write.run, stored, write.stageEventType ?? null);
    const entry = changeEntry(record.write);
    const bytes = record.bytes + lineageBytes(write.run, record.write) + history.bytes + changeBytes([entry]);
    if (current.puts.length + record.items.length + history.actions.length > maxActions || current.bytes + bytes > TRANSACTION_BYTE_BUDGET) {
      groups.push(current);
      current = fresh();
    }
    const [head, ...parts] = record.items;
    current.puts.push({ Update: withEntered(headUpdate(tableName, head!, record.write, write.run), history.entered) });
    for (const item of parts) current.puts.push({ Put: { TableName: tableName, Item: item } });
    current.puts.push(...history.actions);
    current.entries.push(entry);
    current.bytes += bytes;
  }
  // The closing actions go with the page's last records when they fit, else in a transaction of their own.
  if (current.puts.length + closing.length > maxActions || current.bytes + closingBytes > TRANSACTION_BYTE_BUDGET) {
    groups.push(current);
    current = fresh();
  }
  const last = current;
  // The hash is dropped first only when the page takes several transactions; in one, the last action replaces it.
  if (listing.dropFirst && groups.length === 0) last.puts = last.puts.slice(1);
  // Each transaction that writes records names them in its change item, numbered in the page's order.
  const withChanges = [...groups, last].filter((group) => group.puts.length > 0 || group === last);
  for (const [index, group] of withChanges.entries()) {
    if (group.entries.length > 0) group.puts.push({ Update: changeUpdate(tableName, write.connectionId, write.run, index, group.entries) });
  }

  const transactions = [
    ...staging,
    ...groups.filter((group) => group.puts.length > 0).map((group) => ({
      TransactItems: [{ ConditionCheck: fence.check }, ...group.puts],
    })),
    // Lock at LOCK_ACTION_INDEX, progress at PROGRESS_ACTION_INDEX, then the records, then the watermark.
    { TransactItems: [{ Update: fence.lease }, ...closing.slice(0, 1), ...last.puts, ...closing.slice(1)] },
  ];
  const staged = records.flatMap((record) => {
    const version = record.items[0]?.[ATTR.partsVersion]?.S;
    const partitionKey = record.staged[0]?.[ATTR.pk]?.S;
    return version === undefined || partitionKey === undefined ? [] : [{ partitionKey, version }];
  });
  return { transactions, staged };
}

/** The actions of one transaction of the page, their estimated bytes, and the records it writes (its change item). */
interface Group {
  puts: TransactWriteItem[];
  bytes: number;
  readonly entries: ChangeEntry[];
}

/** Whether the page writes any record (an unchanged whole listing writes none): only then are its leads' stages read. */
export function pageWritesRecords(write: PageWrite, storedListing: string | null): boolean {
  const all = distinctRecords(write.records);
  if (all.length === 0 || write.listing === undefined || write.run.page !== 1) return all.length > 0;
  return !listingPlan(write, all.map((record) => recordItems(write.connectionId, record)), storedListing).unchanged;
}

/** The staged parts of the page's records, packed into fenced transactions of Puts (idempotent: same content, same items). */
function packStaged(tableName: string, records: readonly RecordItems[], check: TransactWriteItem["ConditionCheck"]): TransactWriteItemsCommandInput[] {
  const packed: TransactWriteItem[][] = [];
  let current: TransactWriteItem[] = [];
  let bytes = FENCE_BYTES;
  for (const item of records.flatMap((record) => record.staged)) {
    const size = estimateItemBytes(item);
    if (current.length + 1 > TRANSACTION_MAX_ACTIONS - 1 || bytes + size > TRANSACTION_BYTE_BUDGET) {
      packed.push(current);
      current = [];
      bytes = FENCE_BYTES;
    }
    current.push({ Put: { TableName: tableName, Item: item } });
    bytes += size;
  }
  if (current.length > 0) packed.push(current);
  return packed.map((puts) => ({ TransactItems: [{ ConditionCheck: check }, ...puts] }));
}

/** What page 1 of a whole or partial listing does about the stored listing hash. */
interface ListingPlan {
  /** The page's records are exactly those of the stored hash: none is written. */
  readonly unchanged: boolean;
  /** The hash to store with the page's last records (undefined: leave it; null: remove it). */
  readonly store: string | null | undefined;
  /** A stale hash to drop in the page's first transaction (the records it named are about to change). */
  readonly dropFirst: boolean;
}

const KEEP_LISTING: ListingPlan = { unchanged: false, store: undefined, dropFirst: false };

/**
 * Only page 1 with a listing takes part: its hash covers the updated_since it
 * was fetched with and every item the page would write (keys included, so a
 * change of the key layout is a change), in order.
 */
function listingPlan(write: PageWrite, records: readonly RecordItems[], stored: string | null): ListingPlan {
  if (write.listing === undefined || write.run.page !== 1) return KEEP_LISTING;
  const whole = !write.listing.hasMore;
  const hash = whole ? listingHash(write.listing.updatedSince, records) : null;
  if (hash !== null && hash === stored) return { unchanged: true, store: undefined, dropFirst: false };
  if (stored === null) return { unchanged: false, store: hash ?? undefined, dropFirst: false };
  return { unchanged: false, store: hash, dropFirst: records.length > 0 };
}

/** Version of the hashed form: bumping it makes every stored hash stale (every listing is written once). */
const LISTING_HASH_VERSION = 1;

export function listingHash(updatedSince: string | null, records: readonly RecordItems[]): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([LISTING_HASH_VERSION, updatedSince]));
  for (const record of records) for (const item of record.items) hash.update(`\n${JSON.stringify(item)}`);
  return hash.digest("base64url");
}

function watermarkKey(write: PageWrite, entity = write.run.entity): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: watermarkPartitionKey(write.connectionId) }, [ATTR.sk]: { S: watermarkSortKey(entity) } };
}

/**
 * The watermark item's action in the last transaction: the moved watermark,
 * the listing hash when it changes, and the entity's data_as_of on its last
 * page only (`lastPage`, has_more false: the entity finished this run with every page
 * committed, so the store holds what the source had then; a failed or
 * cancelled entity keeps the data_as_of of its last complete run). One Update:
 * it keeps what it does not name (data_as_of on a page before the last).
 * Undefined when the page changes none of them.
 */
function entityStateAction(tableName: string, write: PageWrite, listing: ListingPlan): TransactWriteItem | undefined {
  const sets: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  if (write.lastPage === true) {
    sets.push("#dataAsOf = :dataAsOf");
    names["#dataAsOf"] = ATTR.dataAsOf;
    values[":dataAsOf"] = { S: write.run.committedAt };
  }
  if (write.watermark !== undefined) {
    sets.push("#value = :value");
    names["#value"] = ATTR.value;
    values[":value"] = { S: write.watermark.value };
  }
  if (typeof listing.store === "string") {
    sets.push("#listing = :listing");
    names["#listing"] = ATTR.listing;
    values[":listing"] = { S: listing.store };
  }
  // A page after page 1 that moves the watermark drops the hash: no hash outlives a page after page 1.
  const remove = listing.store === null || (listing === KEEP_LISTING && write.watermark !== undefined);
  if (remove) names["#listing"] = ATTR.listing;
  if (sets.length === 0 && !remove) return undefined;
  return {
    Update: {
      TableName: tableName,
      Key: watermarkKey(write, write.watermark?.entity),
      UpdateExpression: [sets.length > 0 ? `SET ${sets.join(", ")}` : "", remove ? "REMOVE #listing" : ""].filter(Boolean).join(" "),
      ExpressionAttributeNames: names,
      ...(sets.length > 0 ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

function dropListing(tableName: string, write: PageWrite) {
  return {
    TableName: tableName,
    Key: watermarkKey(write),
    UpdateExpression: "REMOVE #listing",
    ExpressionAttributeNames: { "#listing": ATTR.listing },
  };
}

/** Estimated bytes the lineage adds to a head (names, run id twice, times, findings). */
function lineageBytes(run: PageRun, write: RecordWrite): number {
  const findings = (write.lineage?.findings ?? []).reduce((sum, rule) => sum + utf8Bytes(rule) + 1, 0);
  return 2 * utf8Bytes(run.runId) + 4 * utf8Bytes(run.committedAt) + utf8Bytes(write.heal?.auditId ?? "") + findings + 150;
}

/** Bytes counted for the fence and progress actions (small updates of two items). */
const FENCE_BYTES = 1_000;
/** Bytes counted for a change item besides its entries. */
const CHANGE_ITEM_BYTES = 300;

/**
 * One Put per key: DynamoDB rejects a transaction that touches an item twice.
 * A key repeated in the page keeps its first position and its last document.
 */
function distinctRecords(records: readonly RecordWrite[]): RecordWrite[] {
  const byKey = new Map<string, RecordWrite>();
  for (const record of records) byKey.set(JSON.stringify([record.collection, ...record.key]), record);
  return [...byKey.values()];
}

