import { createHash } from "node:crypto";
import type { SyncEntity } from "../core/entities";
import { PaginationError } from "../core/errors";
import type { RecordWrite, StageKinds, WriteLineage } from "../core/ports/record-store";
import { isPlainObject } from "../records/fields/object";
import { isPastPresent } from "../core/present-bound";
import { entityDefinition } from "../source-contract/entity-catalog";
import { recordHits, tallyPage, type PageTally } from "./record-findings";
import { parseSourceRecord } from "./refused-record";
import { noRepeatPage } from "../source-contract/rules/paging-rules";
import { ascending } from "../source-contract/rules/incremental-rules";

/** What the next page is checked against: small enough to travel in the state machine's state. */
export interface PageFingerprint {
  /** Digest of the page's ids in order; equal digests mean a repeated page. */
  readonly idsDigest: string | null;
  /** Largest compared timestamp seen so far in this entity's run (null-timestamp records skipped). */
  readonly lastCompared: string | null;
}

export interface PreparedPage {
  /** Distinct records of the entity on the page (an id repeated within the page counts once). */
  readonly records: number;
  /** Stages carried by a /pipelines page. */
  readonly stages: number;
  readonly unresolvedLeadIds: readonly string[];
  /** In write order: derived loss reasons first, then the records. */
  readonly writes: readonly RecordWrite[];
  /** Largest compared timestamp on the page not past `latestTrusted`, or null when none has one: what may move the watermark. */
  readonly maxCompared: string | null;
  readonly fingerprint: PageFingerprint;
  /** The silent rules the page's distinct records hit, by rule. */
  readonly findings: readonly PageTally[];
  /** The rule ids each distinct record hit (none: an empty list), by record id: what its lineage keeps. */
  readonly ruleIdsById: ReadonlyMap<string, readonly string[]>;
}

/**
 * Validates and normalises one page, all or nothing, and applies the paging
 * rules that need its content. Pure: no I/O, so it runs the same everywhere.
 */
export function preparePage(input: {
  readonly entity: SyncEntity;
  readonly page: number;
  readonly data: readonly unknown[];
  readonly previous: PageFingerprint | null;
  readonly stageKinds: StageKinds;
  /** Ids of the users stored for the connection (reference.user); absent: not checked. */
  readonly userIds?: ReadonlySet<string> | null;
  /**
   * The latest compared timestamp trusted now (core/present-bound.ts): a later
   * one is stored as sent but never moves the watermark, and is a finding
   * (record.updated-at-future). Absent: every timestamp is trusted.
   */
  readonly latestTrusted?: string;
}): PreparedPage {
  const definition = entityDefinition(input.entity);
  // Every record is validated before anything is written: one bad record fails the page.
  const parsed = input.data.map((raw, index) => parseSourceRecord(input.entity, definition.schema, raw, index));

  const ids = parsed.map((record) => record.id);
  const idsDigest = ids.length === 0 ? null : createHash("sha256").update(JSON.stringify(ids)).digest("base64url");
  if (idsDigest !== null && idsDigest === input.previous?.idsDigest) {
    throw new PaginationError(`page ${input.page} repeats the ids of page ${input.page - 1}`, { rule: noRepeatPage.id });
  }

  let lastCompared = input.previous?.lastCompared ?? null;
  let maxCompared: string | null = null;
  for (const record of parsed) {
    const compared = definition.comparedTimestamp(record);
    if (compared === null) continue;
    if (definition.incremental && lastCompared !== null && compared < lastCompared) {
      throw new PaginationError(
        `page ${input.page}: record ${record.id} steps backwards (${compared} after ${lastCompared}); records must ascend by their timestamp`,
        { rule: ascending.id, record: { id: record.id, field: null } },
      );
    }
    lastCompared = compared;
    if (input.latestTrusted !== undefined && isPastPresent(compared, input.latestTrusted)) continue;
    if (maxCompared === null || compared > maxCompared) maxCompared = compared;
  }

  // An id repeated within the page is written once: the last occurrence wins.
  const distinct = new Map<string, (typeof parsed)[number]>();
  const rawOf = new Map<string, unknown>();
  parsed.forEach((record, index) => {
    distinct.delete(record.id);
    distinct.set(record.id, record);
    rawOf.set(record.id, input.data[index]);
  });
  const findingContext = { stageKinds: input.stageKinds, userIds: input.userIds ?? null, ...(input.latestTrusted === undefined ? {} : { latestTrusted: input.latestTrusted }) };
  // Each distinct record's hits, once: the page's findings tally them, and a record's lineage keeps their rule ids.
  const hits = [...distinct.values()].map((record) => {
    const raw = rawOf.get(record.id);
    return { id: record.id, hits: recordHits(input.entity, isPlainObject(raw) ? raw : {}, record, findingContext) };
  });
  const findings = tallyPage(hits);
  const ruleIdsById = new Map(hits.map(({ id, hits: recordHit }) => [id, recordHit.map((hit) => hit.rule)]));

  const unresolvedLeadIds: string[] = [];
  const context = { stageKinds: input.stageKinds, onUnresolvedLead: (id: string) => unresolvedLeadIds.push(id) };
  const writes = dedupeWrites(
    [...distinct.values()].flatMap((record) => withLineage(input.entity, definition.toWrites(record, context), {
      sourceUpdatedAt: definition.comparedTimestamp(record),
      findings: ruleIdsById.get(record.id) ?? [],
    })),
  );

  return {
    records: distinct.size,
    stages: writes.filter((write) => write.collection === "stages").length,
    unresolvedLeadIds,
    writes,
    maxCompared,
    fingerprint: { idsDigest, lastCompared },
    findings,
    ruleIdsById,
  };
}

/**
 * The record's own write carries its lineage facts; what it derives (stages of
 * a pipeline, a lead's loss reason) has no timestamp or findings of its own.
 */
function withLineage(entity: SyncEntity, writes: readonly RecordWrite[], lineage: WriteLineage): RecordWrite[] {
  return writes.map((write) =>
    write.collection === entity ? { ...write, lineage } : { ...write, lineage: { sourceUpdatedAt: null, findings: [] } },
  );
}

/** Last write of a key wins (a stage repeated in its pipeline, a loss reason shared by leads); loss reasons go first. */
function dedupeWrites(writes: readonly RecordWrite[]): RecordWrite[] {
  const byKey = new Map<string, RecordWrite>();
  for (const write of writes) {
    const key = JSON.stringify([write.collection, ...write.key]);
    byKey.delete(key);
    byKey.set(key, write);
  }
  const ordered = [...byKey.values()];
  return [
    ...ordered.filter((write) => write.collection === "loss_reasons"),
    ...ordered.filter((write) => write.collection !== "loss_reasons"),
  ];
}
