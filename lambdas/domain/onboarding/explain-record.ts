import * as v from "valibot";
import { COLLECTIONS, type Collection } from "../core/entities";
import { HealCauseSchema } from "../core/audit-summary";
import { AUDIT_ENTITIES, type AuditEntity } from "../core/run-mode";
import { findRecordAddress, type RecordRef } from "./record-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import type { RecordTrace } from "../core/ports/audit-store";
import { isPastPresent, latestTrusted } from "../core/present-bound";
import { leadHistoryPath } from "./lead-history-operations";

/** The kit's rule id for an updated_at that is missing or does not parse (lambdas/domain/source-contract/rules/record-rules.ts). */
export const UPDATED_AT_RULE = "record.updated-at";
/** The sync's rule id for a compared timestamp past the present (lambdas/domain/source-contract/rules/record-rules.ts). */
export const UPDATED_AT_FUTURE_RULE = "record.updated-at-future";

export const EXPLAIN_VERDICTS = ["current", "updated-at-unparseable", "updated-at-future", "healed-by-audit", "soft-deleted", "never-returned", "ahead-of-watermark"] as const;

/** Why a record is (or is not) what the store holds, for a person: one verdict and one or two sentences. */
export const ExplanationSchema = v.object({
  present: v.pipe(v.boolean(), v.description("The store holds the record")),
  verdict: v.picklist(EXPLAIN_VERDICTS),
  detail: v.string(),
  collection: v.picklist(COLLECTIONS),
  record_id: v.string(),
  /** The record's updated_at as stored (null when missing or unparseable, or not stored). */
  updated_at: v.nullable(v.string()),
  healed_by_audit: v.nullable(
    v.object({ audit_id: v.string(), cause: HealCauseSchema, updated_at: v.nullable(v.string()), watermark: v.nullable(v.string()), at: v.string() }),
  ),
  /** The last audit saw the record changed after the last sync (past the watermark) and left it to the next sync. */
  ahead_of_watermark: v.nullable(v.object({ audit_id: v.string(), updated_at: v.string(), watermark: v.nullable(v.string()) })),
  /** The last audit that did not find the record at the source (it is kept: omission never deletes). */
  absent_in_source: v.nullable(v.object({ audit_id: v.string(), at: v.string() })),
  /** Rule ids the record hit when it was last written. */
  findings: v.array(v.string()),
  last_audit: v.nullable(v.object({ id: v.string(), status: v.string(), started_at: v.string(), finished_at: v.nullable(v.string()) })),
  /** A lead's stage history route (its transitions); null for other entities. */
  history: v.nullable(v.string()),
});
export type Explanation = v.InferOutput<typeof ExplanationSchema>;

const CAUSE_WORDS = {
  missed: "absent from the store (committed late, below the watermark incremental sync had passed)",
  stale: "older in the store than at the source (a change committed late)",
  changed_without_advancing: "changed at the source without its updated_at advancing",
} as const;

/** Collections whose records carry the updated_at that drives incremental sync (events fall back to created_at). */
const WATERMARKED: ReadonlySet<Collection> = new Set(["contacts", "leads", "tasks", "calls"]);

/**
 * GET .../records/{collection}/{record_id}/explain: why the record is what the
 * store holds, or why the store does not hold it. A record the store lacks is
 * a 200 with present false, never a bare 404; an unknown collection or an id
 * over the key limit is a 404 as on the other record routes.
 */
export async function explainRecord(deps: Pick<OnboardingDeps, "connections" | "keySpace" | "audits" | "runs" | "clock">, ref: RecordRef): Promise<Explanation> {
  const { connectionId: id, recordId } = ref;
  const { collection: name, key } = await findRecordAddress(deps, ref);
  const [trace, [lastAudit]] = await Promise.all([deps.audits.recordTrace(id, name, key), deps.runs.listAudits(id, { limit: 1 })]);
  const last = lastAudit === undefined ? null : { id: lastAudit.id, status: lastAudit.status, started_at: lastAudit.started_at, finished_at: lastAudit.finished_at };
  const ahead = last === null ? null : await aheadOfStore(deps, id, last.id, name, recordId, trace);
  const base = {
    collection: name,
    record_id: recordId,
    updated_at: null,
    healed_by_audit: null,
    ahead_of_watermark: ahead === null ? null : { audit_id: ahead.auditId, updated_at: ahead.updatedAt, watermark: ahead.watermark },
    absent_in_source: null,
    findings: [...trace.findings],
    last_audit: last,
    history: name === "leads" ? leadHistoryPath(id, recordId) : null,
  };
  if (ahead !== null) {
    // Not a miss: it changed after the last sync, which asks for everything past the watermark next time.
    const present = trace.doc === null ? { present: false } : { present: true, updated_at: typeof trace.doc["updated_at"] === "string" ? trace.doc["updated_at"] : null };
    return { ...base, ...present, verdict: "ahead-of-watermark", detail: `Changed at the source after the last sync (audit ${ahead.auditId} saw it changed at ${ahead.updatedAt}); the next sync brings it.` };
  }
  if (trace.doc === null) {
    const when = last === null
      ? "No audit has run yet: POST .../audits reads every incremental entity from sync_since and would find it if the source returns it."
      : `The last audit (${last.id}, started ${last.started_at}) did not find it either.`;
    return { ...base, present: false, verdict: "never-returned", detail: `The source has not returned this ${singular(name)} in any run or audit since sync_since. ${when}` };
  }
  const doc = trace.doc;
  const updatedAt = typeof doc["updated_at"] === "string" ? doc["updated_at"] : null;
  const healed = trace.healed === null ? null : { audit_id: trace.healed.auditId, cause: trace.healed.cause, updated_at: trace.healed.updatedAt, watermark: trace.healed.watermark, at: trace.healed.at };
  const absent = trace.absent === null ? null : { audit_id: trace.absent.auditId, at: trace.absent.at };
  const present = { ...base, present: true, updated_at: updatedAt, healed_by_audit: healed, absent_in_source: absent };
  const absentNote = absent === null ? "" : ` The last audit that looked (${absent.audit_id}) did not find it at the source; it is kept, since omission never deletes.`;
  if (doc["is_deleted"] === true) {
    return { ...present, verdict: "soft-deleted", detail: `The source soft-deleted this lead (is_deleted: true, updated_at ${updatedAt ?? "unparseable"}); it is kept as deleted and counts in no report.${absentNote}` };
  }
  if ((WATERMARKED.has(name) && updatedAt === null) || trace.findings.includes(UPDATED_AT_RULE)) {
    return { ...present, verdict: "updated-at-unparseable", detail: `Stored, but its updated_at is missing or does not parse, so it can never move the watermark or be selected by a later updated_since: its future changes reach the store only through an audit.${absentNote}` };
  }
  const compared = trace.sourceUpdatedAt ?? updatedAt;
  if ((compared !== null && isPastPresent(compared, latestTrusted(deps.clock.now()))) || trace.findings.includes(UPDATED_AT_FUTURE_RULE)) {
    return { ...present, verdict: "updated-at-future", detail: `Stored as the source sent it, but its updated_at ${compared ?? ""} is later than the present, so it does not move the watermark and later changes are still synced; the source's clock or data needs fixing (${UPDATED_AT_FUTURE_RULE}).${absentNote}` };
  }
  if (healed !== null) {
    const versus = healed.watermark === null ? "before the entity had a watermark" : `against the watermark ${healed.watermark} at the time`;
    return { ...present, verdict: "healed-by-audit", detail: `Incremental sync missed it; audit ${healed.audit_id} found it ${CAUSE_WORDS[healed.cause]} and wrote it: its updated_at ${healed.updated_at ?? "(none that parses)"} ${versus}.${absentNote}` };
  }
  const findingNote = trace.findings.length === 0 ? "" : ` Its last write hit ${trace.findings.join(", ")}.`;
  return { ...present, verdict: "current", detail: `Synced as the source last returned it${updatedAt === null ? "" : ` (updated_at ${updatedAt})`}.${findingNote}${absentNote}` };
}

/** What the last audit saw of the record past the watermark, when the store does not hold that version yet. */
async function aheadOfStore(deps: Pick<OnboardingDeps, "audits">, id: string, auditId: string, collection: Collection, recordId: string, trace: RecordTrace) {
  if (!(AUDIT_ENTITIES as readonly string[]).includes(collection)) return null;
  const seen = await deps.audits.seenAhead(id, auditId, collection as AuditEntity, recordId);
  if (seen === null) return null;
  const held = trace.doc === null ? null : (trace.sourceUpdatedAt ?? (typeof trace.doc["updated_at"] === "string" ? trace.doc["updated_at"] : null));
  return held !== null && Date.parse(held) >= Date.parse(seen.updatedAt) ? null : seen;
}

function singular(collection: Collection): string {
  return collection === "loss_reasons" ? "loss reason" : collection.replace(/s$/, "");
}
