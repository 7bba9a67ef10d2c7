import { hash } from "node:crypto";
import type { AttributeValue, TransactWriteItem, Update } from "@aws-sdk/client-dynamodb";
import { COLLECTIONS, SYNC_ENTITIES } from "../../../domain/core/entities";
import { CHANGE_ACTIONS, CHANGE_RETENTION_SECONDS, changeActionOf, type ChangeEntry } from "../../../domain/core/change-feed";
import { observedTransition, reportedTransition, type StageTransition, type StoredStage } from "../../../domain/core/lead-history";
import type { PageRun, RecordWrite } from "../../../domain/core/ports/record-store";
import { ATTR, changePartitionKey, historyPartitionKey, historySortKey } from "./keys";
import { utf8Bytes } from "../table/key-limits";

/**
 * What a page's transactions write besides its records (pure): a lead's stage
 * transition next to its head, its entry into its first stage on the head, and
 * one change item per transaction naming the records it wrote. Each goes in
 * the transaction of the records it speaks of (./page-transactions.ts), so
 * records, transitions, changes and the watermark become visible together.
 *
 * A lead's transition is decided against the stage the store held before the
 * page (read by ./stored-stages.ts under the run's lock): a re-sent identical
 * lead moves nothing; a replayed page reads the stage it already wrote and
 * records nothing again. Keys are deterministic (a lead's transition by its
 * time and stages; a commit's changes by run, entity, page, transaction and
 * content), so a resent write lands on the same item.
 */

/** What the store held of each lead of the page before it (by lead id); null: not stored (first sight). Absent: not read. */
export type StoredStages = ReadonlyMap<string, StoredStage | null>;

/** The extra actions of one record, and what they add to its transaction's bytes. */
export interface RecordHistory {
  /** Sent right after the record's head. */
  readonly actions: readonly TransactWriteItem[];
  /** Set on the head (first sight): the lead's entry into its first stage. */
  readonly entered: string | undefined;
  readonly bytes: number;
}

const NONE: RecordHistory = { actions: [], entered: undefined, bytes: 0 };

export function recordHistory(tableName: string, connectionId: string, write: RecordWrite, run: PageRun, stored: StoredStages | undefined, stageEventType: string | null = null): RecordHistory {
  if (write.collection === "events") return reportedHistory(tableName, connectionId, write, run, stageEventType);
  if (write.collection !== "leads" || stored === undefined) return NONE;
  const leadId = write.key[0]!;
  const before = stored.get(leadId);
  if (before === undefined) return NONE;
  const transition = observedTransition(before, write.doc, leadId, { runId: run.runId, committedAt: run.committedAt });
  if (transition === null) return NONE;
  if (transition.from_stage_id === null && before === null) {
    const entered = JSON.stringify([transition.pipeline_id, transition.to_stage_id, transition.at, transition.source_updated_at]);
    return { actions: [], entered, bytes: utf8Bytes(entered) + 20 };
  }
  const item = transitionItem(connectionId, transition);
  return { actions: [{ Put: { TableName: tableName, Item: item } }], entered: undefined, bytes: itemBytes(item) };
}

/** A stage event's transition (core/lead-history.ts, reportedTransition), keyed by its event id: re-sent, it lands on the same item. */
function reportedHistory(tableName: string, connectionId: string, write: RecordWrite, run: PageRun, stageEventType: string | null): RecordHistory {
  const transition = reportedTransition(write.doc, { runId: run.runId, committedAt: run.committedAt }, stageEventType);
  if (transition === null) return NONE;
  const item = transitionItem(connectionId, transition);
  return { actions: [{ Put: { TableName: tableName, Item: item } }], entered: undefined, bytes: itemBytes(item) };
}

/** A stored transition: its JSON in `body`, under its lead's prefix and time. */
export function transitionItem(connectionId: string, transition: StageTransition): Record<string, AttributeValue> {
  // A reported move is its event's (re-sent, the same item); an observed one its stages and time.
  const discriminator = transition.event_id !== null ? JSON.stringify(["event", transition.event_id]) : JSON.stringify([transition.from_stage_id, transition.to_stage_id, transition.source_updated_at, transition.run_id]);
  return {
    [ATTR.pk]: { S: historyPartitionKey(connectionId, transition.lead_id) },
    [ATTR.sk]: { S: historySortKey(transition.lead_id, transition.at, transition.source === "observed" ? "o" : "r", discriminator) },
    [ATTR.body]: { S: JSON.stringify(transition) },
  };
}

/** The head's Update with the lead's entry set when the head has none (a head's first write sets it). */
export function withEntered(update: Update, entered: string | undefined): Update {
  if (entered === undefined) return update;
  return {
    ...update,
    UpdateExpression: (update.UpdateExpression ?? "").replace(/^SET /, "SET #entered = if_not_exists(#entered, :entered), "),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, "#entered": ATTR.entered },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ":entered": { S: entered } },
  };
}

/** The entry a head keeps (ATTR.entered) as a transition, with its first sight's run and time from the lineage. */
export function enteredTransition(leadId: string, entered: string, firstSeen: { run_id: string; at: string } | null): StageTransition | null {
  const parsed: unknown = JSON.parse(entered);
  if (!Array.isArray(parsed) || parsed.length !== 4) return null;
  const [pipelineId, stageId, at, sourceUpdatedAt] = parsed as [string | null, string | null, string, string | null];
  return {
    lead_id: leadId,
    pipeline_id: pipelineId,
    from_stage_id: null,
    to_stage_id: stageId,
    at,
    source: "observed",
    seen_at: firstSeen?.at ?? at,
    source_updated_at: sourceUpdatedAt,
    run_id: firstSeen?.run_id ?? "",
    event_id: null,
  };
}

/** One entry of a commit's change item. */
export function changeEntry(write: RecordWrite): ChangeEntry {
  return { collection: write.collection, key: write.key, action: changeActionOf(write.collection, write.doc) };
}

/**
 * The sort key prefix of a page's commit: the run id's time stamp (runs of a
 * connection never overlap: its lock), the run id, the entity's place in the
 * sync order and the page. Audit ids carry the same stamp after their prefix.
 */
export function commitOrderKey(run: PageRun): string {
  const entity = String(SYNC_ENTITIES.indexOf(run.entity)).padStart(2, "0");
  return `${runCommitPrefix(run.runId)}${entity}#${String(run.page).padStart(5, "0")}`;
}

/** What every change item of one run (or audit) starts with: its commits are one range of the feed. */
export function runCommitPrefix(runId: string): string {
  const stamp = /\d{8}T\d{9}Z/.exec(runId)?.[0] ?? "00000000T000000000Z";
  return `${stamp}#${runId}#`;
}

/**
 * The change item of one transaction of a page (`group`: its place among the
 * page's transactions). Its key holds a hash of its entries: a replay that
 * writes the same records lands on the same item, one that writes others
 * (the source changed between the attempts) adds its own. Kept
 * CHANGE_RETENTION_SECONDS after its first commit (the table's TTL).
 */
export function changeUpdate(tableName: string, connectionId: string, run: PageRun, group: number, entries: readonly ChangeEntry[]): Update {
  const body = encodeChangeEntries(entries);
  const sk = `${commitOrderKey(run)}#${String(group).padStart(3, "0")}#${hash("sha256", body, "base64url").slice(0, 16)}`;
  const expires = Math.floor(Date.parse(run.committedAt) / 1000) + CHANGE_RETENTION_SECONDS;
  return {
    TableName: tableName,
    Key: { [ATTR.pk]: { S: changePartitionKey(connectionId) }, [ATTR.sk]: { S: sk } },
    UpdateExpression: "SET #body = :body, #run = :run, #at = if_not_exists(#at, :at), #expires = if_not_exists(#expires, :expires)",
    ExpressionAttributeNames: { "#body": ATTR.body, "#run": "run_id", "#at": ATTR.committedAt, "#expires": ATTR.expiresAt },
    ExpressionAttributeValues: { ":body": { S: body }, ":run": { S: run.runId }, ":at": { S: run.committedAt }, ":expires": { N: String(expires) } },
  };
}

/**
 * A change item's entries, compact: `[collection index, id (or [pipeline, stage]), 0 upsert | 1 delete]`
 * (COLLECTIONS order; about 20 bytes a record besides its id, so a page of 100
 * leads' changes stays within 2 KB, 4 WRU in the transaction).
 */
export function encodeChangeEntries(entries: readonly ChangeEntry[]): string {
  return JSON.stringify(entries.map((entry) => [COLLECTIONS.indexOf(entry.collection), entry.key.length === 1 ? entry.key[0] : entry.key, CHANGE_ACTIONS.indexOf(entry.action)]));
}

/** The entries encodeChangeEntries wrote; a row it could not have written is skipped. */
export function decodeChangeEntries(body: string): ChangeEntry[] {
  const raw: unknown = JSON.parse(body);
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((row: unknown) => {
    if (!Array.isArray(row) || row.length !== 3) return [];
    const [collection, id, action] = row as [unknown, unknown, unknown];
    const key = typeof id === "string" ? [id] : id;
    const name = typeof collection === "number" ? COLLECTIONS[collection] : undefined;
    const verb = typeof action === "number" ? CHANGE_ACTIONS[action] : undefined;
    if (name === undefined || verb === undefined || !Array.isArray(key) || !key.every((part) => typeof part === "string")) return [];
    return [{ collection: name, key: key as string[], action: verb }];
  });
}

/** Estimated bytes of a change item holding these entries. */
export function changeBytes(entries: readonly ChangeEntry[]): number {
  return 250 + entries.reduce((sum, entry) => sum + 12 + entry.key.reduce((keyBytes, part) => keyBytes + utf8Bytes(JSON.stringify(part)), 0), 0);
}

function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8Bytes(name) + utf8Bytes(value.S ?? ""), 100);
}
