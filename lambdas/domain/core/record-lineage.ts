import * as v from "valibot";
import { IsoTimeSchema } from "./iso-time-schema";

/*
 * A stored record's lineage: where and when the sync first saw it and last
 * wrote it, kept on the record's own item by the same write that stores the
 * record (lambdas/adapters/dynamodb/records/page-transactions.ts), so it costs no extra write or
 * read per record. One schema per shape: the types, the store's parsing and
 * the OpenAPI document come from here.
 */

const page = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The page that first wrote the record. */
export const FirstSeenSchema = v.object({
  run_id: v.string(),
  page,
  /** When that page committed. */
  at: IsoTimeSchema,
});

/** The page that last wrote the record. */
export const LastWrittenSchema = v.object({
  run_id: v.string(),
  page,
  at: IsoTimeSchema,
  /** The timestamp that drives the watermark (updated_at, or created_at for events), as stored; null when missing or unparseable. */
  source_updated_at: v.nullable(IsoTimeSchema),
});

export const RecordLineageSchema = v.object({
  /** Null for a record stored before lineage was kept (its first write since then sets last_written only). */
  first_seen: v.nullable(FirstSeenSchema),
  last_written: v.nullable(LastWrittenSchema),
  /** Pages that wrote the record: a page retried or replayed counts once; an unchanged full listing that was not rewritten, none. */
  writes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** When the sync first stored the lead with `is_deleted: true`; null while it is not soft-deleted. */
  deleted_at: v.nullable(IsoTimeSchema),
  /** The audit that last healed the record (upserted it after incremental sync missed it), or null. */
  healed_by_audit: v.nullable(v.string()),
  /** Rule ids of the silent rules the record hit when it was last written. */
  findings: v.pipe(v.array(v.string()), v.readonly()),
});
export type RecordLineage = v.InferOutput<typeof RecordLineageSchema>;

/** One stored record with its lineage (GET .../records/{collection}/{record_id}). */
export const RecordWithLineageSchema = v.object({
  /** The stored canonical record, or null when the store has none under that id. */
  record: v.nullable(v.record(v.string(), v.unknown())),
  /** Null exactly when `record` is. */
  lineage: v.nullable(RecordLineageSchema),
});
export type RecordWithLineage = v.InferOutput<typeof RecordWithLineageSchema>;
