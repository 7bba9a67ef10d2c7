import { describe, expect, test } from "vitest";
import { classifyRecord, type ReturnedRecord } from "../../../lambdas/domain/audits/heal-plan";
import type { StageKinds } from "../../../lambdas/domain/core/ports/record-store";
import type { AuditEntity } from "../../../lambdas/domain/core/run-mode";
import { preparePage } from "../../../lambdas/domain/ingestion/prepare-page";
import { contactRecord, eventRecord, leadRecord, type RawRecord } from "../../builders/source-records";

/*
 * How an audit classifies one record it read (lambdas/domain/audits/heal-plan.ts):
 * against the entity's committed watermark first, then against the stored
 * version by what the source sent. Records are prepared by the sync's own
 * preparePage, so the documents carry exactly what a page would store.
 */

const WATERMARK = "2026-03-01T12:00:00.000Z";
const audit = { auditId: "audit-a", watermark: WATERMARK };
const kinds = (kind: "open" | "won" | "lost"): StageKinds => new Map([["pipeline-1", new Map([["stage-x", kind]])]]);

/** The record as the audit's page has it: its document and its compared timestamp, from the sync's own page preparation. */
function returned(entity: AuditEntity, raw: RawRecord, stageKinds: StageKinds = new Map()): ReturnedRecord {
  const write = preparePage({ entity, page: 1, data: [raw], previous: null, stageKinds }).writes.find((each) => each.collection === entity)!;
  return { entity, doc: write.doc, compared: write.lineage?.sourceUpdatedAt ?? null };
}
const stored = (record: ReturnedRecord, healedBy: { auditId: string; cause: "stale" } | null = null) => ({ doc: JSON.stringify(record.doc), healedBy });

describe("an audit classifies against the watermark", () => {
  test("a record past the watermark is ahead_of_watermark, never healed: whether the store lacks it, holds it older, or holds other content", () => {
    const changed = returned("contacts", contactRecord({ phone: "+2", updated_at: "2026-03-01T12:00:01Z" }));
    expect(classifyRecord(changed, undefined, audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    expect(classifyRecord(changed, stored(returned("contacts", contactRecord({ phone: "+1", updated_at: "2026-03-01T11:00:00Z" }))), audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    expect(classifyRecord(changed, stored(returned("contacts", contactRecord({ phone: "+1", updated_at: "2026-03-01T12:00:01Z" }))), audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    // Stored exactly as the source has it (a record stored past the watermark): nothing to say.
    expect(classifyRecord(changed, stored(changed), audit)).toBeNull();
  });

  test("a record at or below the watermark is missed, stale or changed_without_advancing; exactly at the watermark is at it", () => {
    const atWatermark = returned("contacts", contactRecord({ phone: "+2", updated_at: "2026-03-01T12:00:00Z" }));
    expect(classifyRecord(atWatermark, undefined, audit)).toEqual({ cause: "missed", write: true });
    expect(classifyRecord(atWatermark, stored(returned("contacts", contactRecord({ phone: "+1", updated_at: "2026-03-01T11:59:59Z" }))), audit)).toEqual({ cause: "stale", write: true });
    expect(classifyRecord(atWatermark, stored(returned("contacts", contactRecord({ phone: "+1", updated_at: "2026-03-01T12:00:00Z" }))), audit)).toEqual({ cause: "changed_without_advancing", write: true });
    expect(classifyRecord(atWatermark, stored(atWatermark), audit)).toBeNull();
    // The stored one is newer: an audit never overwrites it.
    expect(classifyRecord(atWatermark, stored(returned("contacts", contactRecord({ phone: "+9", updated_at: "2026-03-01T13:00:00Z" }))), audit)).toBeNull();
    // A page replayed after this audit healed the record: counted again with its cause, not written again.
    expect(classifyRecord(atWatermark, stored(atWatermark, { auditId: "audit-a", cause: "stale" }), audit)).toEqual({ cause: "stale", write: false });
  });

  test("the watermark is compared as an instant: an offset that puts the record past it is ahead, one that puts it before is not", () => {
    expect(classifyRecord(returned("contacts", contactRecord({ updated_at: "2026-03-01T11:30:00-01:00" })), undefined, audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    expect(classifyRecord(returned("contacts", contactRecord({ updated_at: "2026-03-01T12:30:00+01:00" })), undefined, audit)).toEqual({ cause: "missed", write: true });
  });

  test("while the entity has no watermark every dated record is left to the next sync; one whose updated_at does not parse can only be healed", () => {
    const none = { auditId: "audit-a", watermark: null };
    expect(classifyRecord(returned("contacts", contactRecord()), undefined, none)).toEqual({ cause: "ahead_of_watermark", write: false });
    expect(classifyRecord(returned("contacts", contactRecord({ updated_at: "last Tuesday" })), undefined, none)).toEqual({ cause: "missed", write: true });
    expect(classifyRecord(returned("contacts", contactRecord({ updated_at: "last Tuesday" })), undefined, audit)).toEqual({ cause: "missed", write: true });
  });

  test("events are compared by their updated_at, else created_at", () => {
    // created_at below the watermark, updated_at past it: ahead.
    expect(classifyRecord(returned("events", eventRecord({ created_at: "2026-02-01T00:00:00Z", updated_at: "2026-03-02T00:00:00Z" })), undefined, audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    // No updated_at: created_at decides.
    expect(classifyRecord(returned("events", eventRecord({ created_at: "2026-03-02T00:00:00Z", updated_at: undefined })), undefined, audit)).toEqual({ cause: "ahead_of_watermark", write: false });
    expect(classifyRecord(returned("events", eventRecord({ created_at: "2026-02-01T00:00:00Z", updated_at: undefined })), undefined, audit)).toEqual({ cause: "missed", write: true });
  });
});

describe("fields the service derives never make a record changed", () => {
  const lead = (overrides: RawRecord = {}) => leadRecord({ pipeline_id: "pipeline-1", stage_id: "stage-x", loss_reason: "no budget", updated_at: "2026-02-03T08:00:00Z", ...overrides });

  test("a lead whose stage kind changed since it was stored (won/lost derived again) is the same record", () => {
    const storedWhenOpen = returned("leads", lead(), kinds("open"));
    const readWhenWon = returned("leads", lead(), kinds("won"));
    expect(readWhenWon.doc).toMatchObject({ is_won: true });
    expect(storedWhenOpen.doc).toMatchObject({ is_won: false });
    expect(classifyRecord(readWhenWon, stored(storedWhenOpen), audit)).toBeNull();
    // Not vacuous: the same lead with one source field changed at the same updated_at is changed_without_advancing.
    expect(classifyRecord(returned("leads", lead({ name: "Renamed" }), kinds("won")), stored(storedWhenOpen), audit)).toEqual({ cause: "changed_without_advancing", write: true });
  });

  test("a lead stored with another loss reason id for the same text (derived) is the same record; other text is a change", () => {
    const read = returned("leads", lead(), kinds("lost"));
    expect(classifyRecord(read, stored({ ...read, doc: { ...read.doc, loss_reason_id: "lr_from-an-older-release" } }), audit)).toBeNull();
    expect(classifyRecord(returned("leads", lead({ loss_reason: "too expensive" }), kinds("lost")), stored(read), audit)).toEqual({ cause: "changed_without_advancing", write: true });
  });
});
