import type { Collection } from "../../lambdas/domain/core/entities";
import type { RecordStore } from "../../lambdas/domain/core/ports/record-store";
import type { FunnelInput } from "../../lambdas/domain/figures/funnel-builder";

/** Every stored record of a collection, page by page (a test's read; the refresh streams them instead). */
async function readAll(records: Pick<RecordStore, "listRecords">, connectionId: string, collection: Collection): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page = await records.listRecords(connectionId, collection, { limit: 1000, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

/** The funnel's collections of one connection as stored, whole. */
export async function readFunnelInput(records: Pick<RecordStore, "listRecords">, connectionId: string): Promise<FunnelInput> {
  const [pipelines, stages, leads, tasks, calls] = await Promise.all(
    (["pipelines", "stages", "leads", "tasks", "calls"] as const).map((collection) => readAll(records, connectionId, collection)),
  );
  return { pipelines: pipelines!, stages: stages!, leads: leads!, tasks: tasks!, calls: calls! };
}
