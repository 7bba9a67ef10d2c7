import type { HealCause, HealedCounts } from "../core/audit-summary";
import type { AheadRecord, AuditStore, StoredVersion } from "../core/ports/audit-store";
import type { RecordWrite } from "../core/ports/record-store";
import type { AuditEntity } from "../core/run-mode";
import { DERIVED_FIELDS } from "../core/derived-fields";
import { recordNewestValue, UNDATED_NEWEST_VALUE } from "../core/record-newest";

/**
 * How an audit's page heals the store. A record whose compared timestamp
 * (updated_at; events: updated_at, else created_at) is past the entity's
 * committed watermark is an ordinary change the next sync asks for: it is
 * counted ahead_of_watermark and left to that sync, never healed. The
 * others are compared with the stored one by the record's newest value
 * (updated_at, else created_at: the order the store's write guard uses):
 *
 *   store lacks it                                  -> missed: written
 *   stored one older                                -> stale: written
 *   same time, other content                        -> changed_without_advancing: written
 *   same content                                    -> nothing (unless this audit wrote it: a replayed page counts it again)
 *   stored one newer                                -> nothing: an audit never overwrites a newer version
 *
 * Content is what the source sent: fields the service derives (a lead's
 * won/lost and loss reason id) are left out of the comparison. Derived loss
 * reasons are written with the healed leads that name them.
 */
export type RecordVerdict = { readonly cause: HealCause; readonly write: boolean } | { readonly cause: "ahead_of_watermark"; readonly write: false } | null;

export interface ReturnedRecord {
  readonly entity: AuditEntity;
  /** The canonical document the page would write. */
  readonly doc: Readonly<Record<string, unknown>>;
  /** Its compared timestamp (toISOString form); null when it has none that parses. */
  readonly compared: string | null;
}

export function classifyRecord(
  record: ReturnedRecord,
  stored: StoredVersion | undefined,
  audit: { readonly auditId: string; readonly watermark: string | null },
): RecordVerdict {
  const heldDoc = stored === undefined ? undefined : parseDoc(stored.doc);
  const same = heldDoc !== undefined && sameSourceContent(record.entity, record.doc, heldDoc);
  if (isAhead(record.compared, audit.watermark)) return same ? null : { cause: "ahead_of_watermark", write: false };
  if (stored === undefined || heldDoc === undefined) return { cause: "missed", write: true };
  if (same) return stored.healedBy !== null && stored.healedBy.auditId === audit.auditId ? { cause: stored.healedBy.cause, write: false } : null;
  const source = recordNewestValue(record.doc);
  const held = recordNewestValue(heldDoc);
  if (source > held) return { cause: "stale", write: true };
  if (source === held) return { cause: "changed_without_advancing", write: true };
  return null;
}

/** Past the watermark, or dated while the entity has none yet: the next sync asks for it (from sync_since when none). */
export function isAhead(compared: string | null, watermark: string | null): boolean {
  return compared !== null && (watermark === null || Date.parse(compared) > Date.parse(watermark));
}

/** Equal in what the source sent: the service's derived fields left out. */
function sameSourceContent(entity: AuditEntity, a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return JSON.stringify(sourceContent(entity, a)) === JSON.stringify(sourceContent(entity, b));
}

function sourceContent(entity: AuditEntity, doc: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const derived = DERIVED_FIELDS[entity];
  if (derived === undefined) return doc;
  const content = { ...doc };
  for (const field of derived) delete content[field];
  return content;
}

export interface HealPlanInput {
  readonly connectionId: string;
  readonly auditId: string;
  readonly entity: AuditEntity;
  readonly page: number;
  /** The entity's committed watermark when the audit read it (an audit never moves it): kept on each healed record for explain. */
  readonly watermark: string | null;
  /** The page's validated writes, as a sync would commit them. */
  readonly writes: readonly RecordWrite[];
  readonly at: string;
}

export interface HealPlan {
  /** What the page commits: the healed records (with their heal mark) and the loss reasons they name. */
  readonly writes: readonly RecordWrite[];
  readonly healed: HealedCounts;
  /** Records past the watermark the store does not hold as the source has them: the next sync brings them. */
  readonly ahead: number;
  readonly sampleIds: readonly string[];
}

/** Reads the stored versions of the page's records, remembers the ids the source returned, and plans the heal. */
export async function planAuditPage(store: AuditStore, input: HealPlanInput): Promise<HealPlan> {
  const records = input.writes.filter((write) => write.collection === input.entity);
  const ids = records.map((write) => write.key[0]);
  const compared = (write: RecordWrite) => write.lineage?.sourceUpdatedAt ?? null;
  // Which records are past the watermark needs no stored version: kept with the returned ids, in the same write, for explain.
  const aheadSeen: AheadRecord[] = records.flatMap((write) => (isAhead(compared(write), input.watermark) ? [{ id: write.key[0], updatedAt: compared(write)! }] : []));
  const [stored] = await Promise.all([
    store.storedVersions(input.connectionId, input.entity, ids),
    store.rememberReturned(input.connectionId, input.auditId, input.entity, input.page, ids, input.at, {
      ahead: aheadSeen,
      settled: aheadSeen.length < records.filter((write) => compared(write) !== null).length,
      watermark: input.watermark,
    }),
  ]);
  const healed: Record<HealCause, number> = { missed: 0, stale: 0, changed_without_advancing: 0 };
  let ahead = 0;
  const sampleIds: string[] = [];
  const writes: RecordWrite[] = [];
  for (const write of records) {
    const id = write.key[0];
    const verdict = classifyRecord({ entity: input.entity, doc: write.doc, compared: compared(write) }, stored.get(id), input);
    if (verdict === null) continue;
    if (verdict.cause === "ahead_of_watermark") {
      ahead += 1;
      continue;
    }
    healed[verdict.cause] += 1;
    sampleIds.push(id);
    if (!verdict.write) continue;
    const newest = recordNewestValue(write.doc);
    writes.push({
      ...write,
      heal: {
        auditId: input.auditId,
        cause: verdict.cause,
        updatedAt: newest === UNDATED_NEWEST_VALUE ? null : newest,
        watermark: input.watermark,
        at: input.at,
      },
    });
  }
  const named = new Set(writes.map((write) => write.doc["loss_reason_id"]).filter((id) => typeof id === "string"));
  const reasons = input.writes.filter((write) => write.collection === "loss_reasons" && named.has(write.key[0]));
  return {
    writes: [...reasons, ...writes],
    healed: { missed: healed.missed, stale: healed.stale, changed_without_advancing: healed.changed_without_advancing },
    ahead,
    sampleIds,
  };
}

function parseDoc(text: string): Record<string, unknown> {
  try {
    const doc: unknown = JSON.parse(text);
    return typeof doc === "object" && doc !== null ? (doc as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
