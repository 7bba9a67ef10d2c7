import type { HealCause, HealedCounts } from "../core/audit-summary";
import type { AuditStore, StoredVersion } from "../core/ports/audit-store";
import type { RecordWrite } from "../core/ports/record-store";
import type { AuditEntity } from "../core/run-mode";
import { recordNewestValue, UNDATED_NEWEST_VALUE } from "../core/record-newest";

/**
 * How an audit's page heals the store. Each record the source returns is
 * compared with the stored one, by the record's newest value (updated_at,
 * else created_at: the same order the store's write guard uses):
 *
 *   store lacks it                                  -> missed: written
 *   stored one older                                -> stale: written
 *   same time, other content                        -> changed_without_advancing: written
 *   same content                                    -> nothing (unless this audit wrote it: a replayed page counts it again)
 *   stored one newer                                -> nothing: an audit never overwrites a newer version
 *
 * Derived loss reasons are written with the healed leads that name them.
 */
export function classifyRecord(sourceDoc: Readonly<Record<string, unknown>>, stored: StoredVersion | undefined, auditId: string): { readonly cause: HealCause; readonly write: boolean } | null {
  if (stored === undefined) return { cause: "missed", write: true };
  if (stored.doc === JSON.stringify(sourceDoc)) {
    return stored.healedBy !== null && stored.healedBy.auditId === auditId ? { cause: stored.healedBy.cause, write: false } : null;
  }
  const source = recordNewestValue(sourceDoc);
  const held = recordNewestValue(parseDoc(stored.doc));
  if (source > held) return { cause: "stale", write: true };
  if (source === held) return { cause: "changed_without_advancing", write: true };
  return null;
}

export interface AuditPageInput {
  readonly connectionId: string;
  readonly auditId: string;
  readonly entity: AuditEntity;
  readonly page: number;
  /** The entity's committed watermark when the page was read: kept on each healed record for explain. */
  readonly watermark: string | null;
  /** The page's validated writes, as a sync would commit them. */
  readonly writes: readonly RecordWrite[];
  readonly at: string;
}

export interface AuditPagePlan {
  /** What the page commits: the healed records (with their heal mark) and the loss reasons they name. */
  readonly writes: readonly RecordWrite[];
  readonly healed: HealedCounts;
  readonly sampleIds: readonly string[];
}

/** Reads the stored versions of the page's records, remembers the ids the source returned, and plans the heal. */
export async function planAuditPage(store: AuditStore, input: AuditPageInput): Promise<AuditPagePlan> {
  const records = input.writes.filter((write) => write.collection === input.entity);
  const ids = records.map((write) => write.key[0]);
  const [stored] = await Promise.all([
    store.storedVersions(input.connectionId, input.entity, ids),
    store.rememberReturned(input.connectionId, input.auditId, input.entity, input.page, ids, input.at),
  ]);
  const healed: Record<HealCause, number> = { missed: 0, stale: 0, changed_without_advancing: 0 };
  const sampleIds: string[] = [];
  const writes: RecordWrite[] = [];
  for (const write of records) {
    const id = write.key[0];
    const verdict = classifyRecord(write.doc, stored.get(id), input.auditId);
    if (verdict === null) continue;
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

