import * as v from "valibot";
import { COLLECTIONS, type Collection } from "../core/entities";
import type { RecordOrder, RecordWrite } from "../core/ports/record-store";
import type { RecordWithLineage } from "../core/record-lineage";
import { findConnection } from "./connection-operations";
import { parseFields } from "./connection-input";
import type { OnboardingDeps } from "./onboarding-deps";
import { NotFoundError } from "./onboarding-errors";

export const RECORDS_DEFAULT_LIMIT = 100;
export const RECORD_ORDERS = ["key", "newest"] as const satisfies readonly RecordOrder[];
export const RECORDS_MAX_LIMIT = 1000;
const LIMIT_RULE = `must be an integer from 1 to ${RECORDS_MAX_LIMIT}`;

/** Query string of the records endpoint (API Gateway passes every value as a string). */
const RecordsQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(LIMIT_RULE),
      v.regex(/^\d+$/, LIMIT_RULE),
      v.transform(Number),
      v.minValue(1, LIMIT_RULE),
      v.maxValue(RECORDS_MAX_LIMIT, LIMIT_RULE),
    ),
    String(RECORDS_DEFAULT_LIMIT),
  ),
  cursor: v.optional(v.pipe(v.string(), v.nonEmpty("must not be empty"))),
  /** `key` (default): the store's key order; `newest`: by updated_at (else created_at), newest first. */
  order: v.optional(v.picklist(RECORD_ORDERS, `must be one of ${RECORD_ORDERS.join(", ")}`), "key"),
});

/** A page of canonical records, exactly as stored. */
export const RecordsPageSchema = v.object({
  data: v.pipe(v.array(v.record(v.string(), v.unknown())), v.readonly()),
  next_cursor: v.pipe(v.nullable(v.string()), v.description("Pass back as `cursor` for the next page; null on the last page")),
});
export type RecordsPage = v.InferOutput<typeof RecordsPageSchema>;

/** A collection named in a path; NotFoundError for any other name. */
function requireCollection(entity: string): Collection {
  if (!(COLLECTIONS as readonly string[]).includes(entity)) {
    throw new NotFoundError(`no record collection ${entity}; one of ${COLLECTIONS.join(", ")}`);
  }
  return entity as Collection;
}

/** Query string of one record's routes: a stage is named by its pipeline too (its id repeats across pipelines). */
const RecordQuerySchema = v.object({ pipeline_id: v.optional(v.string()) });

/** Where one record of a connection is: its collection and key, as the store keys it. */
export interface RecordAddress {
  readonly collection: Collection;
  readonly key: RecordWrite["key"];
}

/** The record a route names: the caller's workspace, the connection, …/records/{entity}/{recordId} and its query string. */
export interface RecordRef {
  readonly account: string;
  readonly connectionId: string;
  readonly entity: string;
  readonly recordId: string;
  /** `?pipeline_id=` names a stage's pipeline. */
  readonly query: Readonly<Record<string, string | undefined>>;
}

/**
 * The record a route names (a stage by its pipeline too), after the connection
 * is found in the caller's workspace. NotFoundError for an unknown collection
 * and for an id (or pipeline id) over the key limit, which names nothing that
 * can be stored, as on the other routes; InvalidFieldError for a stage without
 * its pipeline_id. Shared by every route on one record.
 */
export async function findRecordAddress(deps: Pick<OnboardingDeps, "connections" | "keySpace">, ref: RecordRef): Promise<RecordAddress> {
  const { account, connectionId, entity, recordId, query } = ref;
  await findConnection(deps, account, connectionId);
  const collection = requireCollection(entity);
  if (!deps.keySpace.isStorableId(recordId)) throw new NotFoundError(`no ${collection} record ${recordId.slice(0, 40)}...: too long to be an id`);
  if (collection !== "stages") return { collection, key: [recordId] };
  const { pipeline_id: pipelineId } = parseFields(
    v.object({ pipeline_id: v.pipe(v.string("is required: a stage is named by its pipeline and its own id"), v.nonEmpty("must not be empty")) }),
    v.parse(RecordQuerySchema, { pipeline_id: query["pipeline_id"] }),
  );
  if (!deps.keySpace.isStorableId(pipelineId)) throw new NotFoundError(`no pipeline ${pipelineId.slice(0, 40)}...: too long to be an id`);
  return { collection, key: [pipelineId, recordId] };
}

/** One stored record with its lineage; `{ record: null, lineage: null }` when none is stored under that id. */
export async function getRecord(deps: OnboardingDeps, ref: RecordRef): Promise<RecordWithLineage> {
  const { collection, key } = await findRecordAddress(deps, ref);
  return deps.records.getRecord(ref.connectionId, collection, key);
}

/** Exactly what was ingested for one collection, in the canonical shape. */
export async function listRecords(
  deps: OnboardingDeps,
  account: string,
  id: string,
  entity: string,
  query: Record<string, string | undefined>,
): Promise<RecordsPage> {
  await findConnection(deps, account, id);
  requireCollection(entity);
  const { limit, cursor, order } = parseFields(RecordsQuerySchema, query);
  const page = await deps.records.listRecords(id, entity as Collection, { limit, cursor: cursor ?? null, order });
  return { data: page.records, next_cursor: page.nextCursor };
}
