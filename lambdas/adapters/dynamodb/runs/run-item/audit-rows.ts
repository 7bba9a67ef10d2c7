import type { AttributeValue, Update } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import * as v from "valibot";
import type { SummaryEntity } from "../../../../domain/core/entities";
import type { PageAudit } from "../../../../domain/core/ports/record-store";
import { AUDIT_ENTITIES } from "../../../../domain/core/run-mode";
import { AUDIT_SAMPLE_IDS, type AuditSummary, type HealedCounts } from "../../../../domain/core/audit-summary";
import { CorruptRunItemError, describeIssue, readRunItem, requireCount } from "./run-codec";
import { RUN_ATTR, entityMapKey, type Item } from "./run-keys";
import { liveSummaryUpdate } from "./status-conditions";

/* An audit's rows: what its pages add, what closing an entity sets, and how the API reads them. */

/** What an audit's page adds to its entity's row, in the page's progress update (pageFence): counted once, like the page. */
export function auditPageProgress(audit: PageAudit) {
  const { healed, sampleIds } = audit;
  const adds = ["#entities.#entity.#hm :hm", "#entities.#entity.#hs :hs", "#entities.#entity.#hc :hc"];
  const sets: string[] = [];
  const names: Record<string, string> = { "#hm": RUN_ATTR.auditHealedMissed, "#hs": RUN_ATTR.auditHealedStale, "#hc": RUN_ATTR.auditHealedChanged };
  const values: Record<string, AttributeValue> = {
    ":hm": { N: String(requireCount("missed", healed.missed)) },
    ":hs": { N: String(requireCount("stale", healed.stale)) },
    ":hc": { N: String(requireCount("changed_without_advancing", healed.changed_without_advancing)) },
  };
  if (audit.ahead > 0) {
    names["#ahead"] = RUN_ATTR.auditAhead;
    values[":ahead"] = { N: String(requireCount("ahead", audit.ahead)) };
    adds.push("#entities.#entity.#ahead :ahead");
  }
  if (sampleIds.length > 0) {
    names["#samples"] = RUN_ATTR.auditSampleIds;
    values[":samples"] = { L: sampleIds.slice(0, AUDIT_SAMPLE_IDS).map((id) => ({ S: id })) };
    values[":noSamples"] = { L: [] };
    sets.push("#entities.#entity.#samples = list_append(if_not_exists(#entities.#entity.#samples, :noSamples), :samples)");
  }
  return { adds, sets, names, values };
}

/**
 * What an audit found of an entity once it read the whole of it: the records
 * the store holds, the ones the source no longer returns, and a few of their
 * ids after the healed ones. SET, not ADD: a replayed close writes the same.
 */
export function auditEntityClosedUpdate(
  tableName: string,
  connectionId: string,
  auditId: string,
  entity: SummaryEntity,
  closed: { readonly storedRecords: number; readonly absentIds: readonly string[] },
): Update {
  return liveSummaryUpdate(tableName, connectionId, auditId, {
    UpdateExpression:
      "SET #entities.#entity.#stored = :stored, #entities.#entity.#absent = :absent, #entities.#entity.#absentSamples = :absentSamples",
    ExpressionAttributeNames: {
      "#entities": RUN_ATTR.entities,
      "#entity": entityMapKey(entity),
      "#stored": RUN_ATTR.auditStoredRecords,
      "#absent": RUN_ATTR.auditAbsent,
      "#absentSamples": AUDIT_ABSENT_SAMPLES,
    },
    ExpressionAttributeValues: {
      ":stored": { N: String(requireCount("storedRecords", closed.storedRecords)) },
      ":absent": { N: String(closed.absentIds.length) },
      ":absentSamples": { L: closed.absentIds.slice(0, AUDIT_SAMPLE_IDS).map((id) => ({ S: id })) },
    },
  });
}

const AUDIT_ABSENT_SAMPLES = "absent_sample_ids";

const AuditRowExtrasSchema = v.object({
  [RUN_ATTR.auditHealedMissed]: v.optional(v.number(), 0),
  [RUN_ATTR.auditHealedStale]: v.optional(v.number(), 0),
  [RUN_ATTR.auditHealedChanged]: v.optional(v.number(), 0),
  [RUN_ATTR.auditAhead]: v.optional(v.number(), 0),
  [RUN_ATTR.auditSampleIds]: v.optional(v.array(v.string()), []),
  [RUN_ATTR.auditStoredRecords]: v.optional(v.number(), 0),
  [RUN_ATTR.auditAbsent]: v.optional(v.number(), 0),
  [AUDIT_ABSENT_SAMPLES]: v.optional(v.array(v.string()), []),
});

/** An audit's summary item as the API shows it; CorruptRunItemError when it does not parse. */
export function readAuditItem(item: Item): AuditSummary {
  const summary = readRunItem(item);
  const raw = unmarshall(item) as { entities?: Record<string, unknown> };
  return {
    id: summary.id,
    status: summary.status,
    started_at: summary.started_at,
    finished_at: summary.finished_at,
    entities: summary.entities.flatMap((row) => {
      const entity = AUDIT_ENTITIES.find((name) => name === row.entity);
      if (entity === undefined) return [];
      const parsed = v.safeParse(AuditRowExtrasSchema, raw.entities?.[entityMapKey(row.entity)] ?? {});
      if (!parsed.success) throw new CorruptRunItemError(`audit ${summary.id}: row ${row.entity}: ${describeIssue(parsed.issues[0])}`);
      const extras = parsed.output;
      const healed: HealedCounts = {
        missed: extras[RUN_ATTR.auditHealedMissed],
        stale: extras[RUN_ATTR.auditHealedStale],
        changed_without_advancing: extras[RUN_ATTR.auditHealedChanged],
      };
      return [
        {
          entity,
          status: row.status,
          source_records: row.records,
          stored_records: extras[RUN_ATTR.auditStoredRecords],
          healed,
          ahead_of_watermark: extras[RUN_ATTR.auditAhead],
          absent_in_source: extras[RUN_ATTR.auditAbsent],
          sample_ids: [...extras[RUN_ATTR.auditSampleIds], ...extras[AUDIT_ABSENT_SAMPLES]].slice(0, AUDIT_SAMPLE_IDS),
          findings: row.findings,
          error: row.error,
        },
      ];
    }),
  };
}
