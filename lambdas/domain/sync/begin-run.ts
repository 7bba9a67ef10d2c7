import * as v from "valibot";
import { entitiesOfMode, runModeOf } from "../core/run-mode";
import type { SyncDeps } from "./sync-deps";
import { leaseUntil, loadConnection, startEntity } from "./entity-steps";
import { ExecutionRunSchema, SyncCursorSchema, type SyncState } from "./sync-state";

/**
 * The execution input (a fresh run, or a run continued in a fresh execution)
 * plus the execution's id: null for a run's first segment started by the
 * schedule tick, where no sync execution drives the run yet (the lease guards
 * it until one takes over: statemachine/dispatch.asl.json).
 */
export const BeginRunEventSchema = v.object({
  input: v.object({
    ...ExecutionRunSchema.entries,
    continuation: v.optional(v.nullable(SyncCursorSchema)),
  }),
  execution_id: v.nullable(v.pipe(v.string(), v.minLength(1))),
});
export type BeginRunEvent = v.InferOutput<typeof BeginRunEventSchema>;

/** First state of every execution: records which execution now drives the run, and where it starts. */
export async function beginRun(deps: SyncDeps, event: BeginRunEvent): Promise<SyncState> {
  const { continuation, generation, ...ids } = event.input;
  const run = { ...ids, generation: generation ?? 0 };
  // One write of the lock: the execution and the lease together. A dispatched first segment has no execution of its own yet.
  if (event.execution_id !== null) await deps.runs.setExecution(run.connection_id, run.run_id, event.execution_id, leaseUntil(deps.clock.now()));
  else await deps.runs.heartbeat(run.connection_id, run.run_id, leaseUntil(deps.clock.now()));
  if (continuation) {
    const cursor = { ...continuation, steps: 0 };
    deps.logger.info("run continued in a fresh execution", { ...run, entity: cursor.entity, page: cursor.page });
    return { run, cursor, step: { outcome: "next_page" } };
  }
  const connection = await loadConnection(deps, run);
  deps.logger.info("run started", { ...run, base_url: connection.base_url, rate_limit: connection.rate_limit });
  const cursor = await startEntity(deps, run, connection, entitiesOfMode(runModeOf(run.run_id))[0]!, 0);
  return { run, cursor, step: { outcome: "next_page" } };
}
