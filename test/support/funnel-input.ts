import { readAllRecords } from "../../lambdas/domain/records/read-all-records";
import type { RecordStore } from "../../lambdas/domain/core/ports/record-store";
import type { FunnelInput } from "../../lambdas/domain/figures/funnel-builder";

/** The funnel's collections of one connection as stored, whole. */
export async function readFunnelInput(records: Pick<RecordStore, "listRecords">, connectionId: string): Promise<FunnelInput> {
  const [pipelines, stages, leads, tasks, calls] = await Promise.all(
    (["pipelines", "stages", "leads", "tasks", "calls"] as const).map((collection) => readAllRecords(records, connectionId, collection)),
  );
  return { pipelines: pipelines!, stages: stages!, leads: leads!, tasks: tasks!, calls: calls! };
}
