import type { Collection } from "../core/entities";
import type { RecordStore } from "../core/ports/record-store";

/** Records per read when a collection is read whole. */
const READ_PAGE = 1000;

/** Every stored record of a collection, page by page: for the reads that need it whole (users, the velocity, tests). */
export async function readAllRecords(records: Pick<RecordStore, "listRecords">, connectionId: string, collection: Collection): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page = await records.listRecords(connectionId, collection, { limit: READ_PAGE, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}
