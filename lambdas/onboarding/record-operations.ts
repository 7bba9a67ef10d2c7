import * as v from "valibot";
import { COLLECTIONS, type Collection } from "../core/entities";
import type { RecordOrder } from "../core/ports/record-store";
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

/** Exactly what was ingested for one collection, in the canonical shape. */
export async function listRecords(
  deps: OnboardingDeps,
  account: string,
  id: string,
  entity: string,
  query: Record<string, string | undefined>,
): Promise<RecordsPage> {
  await findConnection(deps, account, id);
  if (!(COLLECTIONS as readonly string[]).includes(entity)) {
    throw new NotFoundError(`no record collection ${entity}; one of ${COLLECTIONS.join(", ")}`);
  }
  const { limit, cursor, order } = parseFields(RecordsQuerySchema, query);
  const page = await deps.records.listRecords(id, entity as Collection, { limit, cursor: cursor ?? null, order });
  return { data: page.records, next_cursor: page.nextCursor };
}
