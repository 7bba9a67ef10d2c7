import type { SyncEntity } from "../core/entities";
import { FINDING_SAMPLE_IDS } from "../core/limits";
import type { PageFinding, StageKinds } from "../core/ports/record-store";
import type { Severity } from "../core/severity";
import { SILENT_RECORD_RULES } from "../source-contract/rules/record-rules";
import { referenceStage, referenceUser } from "../source-contract/rules/reference-rules";

/*
 * The silent rules of the spec, as the sync sees them: a record it accepts and
 * stores, but not as the source meant it. The checks are the conformance
 * kit's own (lambdas/domain/source-contract/rules), so a run's findings and the kit's
 * report name the same rules with the same ids.
 */

/** What the rules that look past one record need. */
export interface FindingContext {
  /** The stages synced so far (leads pages), for reference.stage. */
  readonly stageKinds: StageKinds;
  /** Ids of the users stored for the connection; null or empty: not known, reference.user is not checked. */
  readonly userIds: ReadonlySet<string> | null;
  /** The latest compared timestamp the run trusts (core/present-bound.ts); absent: record.updated-at-future is not checked. */
  readonly latestTrusted?: string;
}

/** One rule one record hit. */
export interface RecordHit {
  readonly rule: string;
  readonly severity: Severity;
  /** What the record showed and how to fix it, as the kit words it. */
  readonly detail: string;
}

/** Entities whose records name a responsible user (reference.user). */
export const NAMES_USERS: readonly SyncEntity[] = ["contacts", "leads", "tasks", "calls"];

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/**
 * Every silent rule one accepted record hits. Pure: `raw` is the record as the
 * source sent it, `output` what the sync's schema made of it.
 */
export function recordHits(entity: SyncEntity, raw: Record<string, unknown>, output: { readonly id: string }, context: FindingContext): RecordHit[] {
  const hits: RecordHit[] = [];
  const observation = { entity, raw, recordId: output.id, invalid: null, output, ...(context.latestTrusted === undefined ? {} : { latestTrusted: context.latestTrusted }) };
  for (const silent of SILENT_RECORD_RULES) {
    const detail = silent.check(observation);
    if (detail !== null) hits.push({ rule: silent.id, severity: silent.severity, detail });
  }
  const stored = output as Record<string, unknown>;
  if (entity === "leads") {
    const lead = { leadId: output.id, pipelineId: text(stored["pipeline_id"]), stageId: text(stored["stage_id"]), stageKinds: context.stageKinds };
    const detail = referenceStage.check(lead);
    if (detail !== null) hits.push({ rule: referenceStage.id, severity: referenceStage.severity, detail });
  }
  if (NAMES_USERS.includes(entity) && context.userIds !== null && context.userIds.size > 0) {
    const detail = referenceUser.check({ recordId: output.id, userId: stored["responsible_user_id"], userIds: context.userIds });
    if (detail !== null) hits.push({ rule: referenceUser.id, severity: referenceUser.severity, detail });
  }
  return hits;
}

/** The rule ids one accepted record hits: what a record's lineage keeps as its `findings`. */
export function recordFindingIds(entity: SyncEntity, raw: Record<string, unknown>, output: { readonly id: string }, context: FindingContext): string[] {
  return recordHits(entity, raw, output, context).map((hit) => hit.rule);
}

/** A page's findings per rule: every id that hit it, in page order, and the first detail. */
export interface PageTally {
  readonly rule: string;
  readonly severity: Severity;
  readonly ids: readonly string[];
  readonly detail: string;
}

/** Tallies the hits of a page's distinct records by rule, in the order the rules were first hit. */
export function tallyPage(records: readonly { readonly id: string; readonly hits: readonly RecordHit[] }[]): PageTally[] {
  const byRule = new Map<string, { rule: string; severity: Severity; ids: string[]; detail: string }>();
  for (const { id, hits } of records) {
    for (const hit of hits) {
      const tally = byRule.get(hit.rule);
      if (tally === undefined) byRule.set(hit.rule, { rule: hit.rule, severity: hit.severity, ids: [id], detail: hit.detail });
      else tally.ids.push(id);
    }
  }
  return [...byRule.values()];
}

/** How many sample ids the run already holds per rule for the current entity (travels in the sync's cursor). */
export type SampledSoFar = Readonly<Record<string, number>>;

/**
 * What the page adds to the run's findings: its counts, and sample ids only
 * while the run holds fewer than FINDING_SAMPLE_IDS for the rule, so the
 * stored examples stay bounded without reading them back.
 */
export function pageFindings(tallies: readonly PageTally[], sampled: SampledSoFar): { findings: PageFinding[]; sampled: SampledSoFar } {
  const next: Record<string, number> = { ...sampled };
  const findings = tallies.map((tally): PageFinding => {
    const room = Math.max(0, FINDING_SAMPLE_IDS - (sampled[tally.rule] ?? 0));
    const sampleIds = tally.ids.slice(0, room);
    next[tally.rule] = (sampled[tally.rule] ?? 0) + sampleIds.length;
    return { rule: tally.rule, severity: tally.severity, count: tally.ids.length, sampleIds, detail: tally.detail };
  });
  return { findings, sampled: next };
}
