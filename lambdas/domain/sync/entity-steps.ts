import type { SummaryEntity, SyncEntity } from "../core/entities";
import { entitiesOfMode, runModeOf, type AuditEntity } from "../core/run-mode";
import { ConnectionNotFoundError } from "../core/errors";
import { PAGE_TASKS_PER_EXECUTION, PAGE_TASKS_PER_SEGMENT, RUN_LEASE_SECONDS, SEGMENT_PAGE_START_SECONDS } from "../core/limits";
import type { StoredConnection } from "../core/connection";
import type { EntityOutcome } from "../core/ports/run-store";
import { entityDefinition } from "../source-contract/entity-catalog";
import type { SyncDeps } from "./sync-deps";
import type { ExecutionRun, SyncCursor, SyncState } from "./sync-state";
import { updatedSince } from "./updated-since";
import { trustedWatermark } from "../core/present-bound";

/** The summary rows an entity's outcome lands on: /pipelines also carries the stages. */
export function summaryRowsOf(entity: SyncEntity): SummaryEntity[] {
  return entity === "pipelines" ? ["pipelines", "stages"] : [entity];
}

export async function loadConnection(deps: Pick<SyncDeps, "connections">, run: ExecutionRun): Promise<StoredConnection> {
  const connection = await deps.connections.get(run.business_account_id, run.connection_id);
  if (connection === null) throw new ConnectionNotFoundError(`connection ${run.connection_id} no longer exists`);
  return connection;
}

export function leaseUntil(now: Date): string {
  return new Date(now.getTime() + RUN_LEASE_SECONDS * 1000).toISOString();
}

/**
 * After a page task: fetch on; or, once this execution has run enough page
 * tasks, continue in a fresh execution; or, at the end of a segment, hand the
 * run back to the Standard parent, which starts the next segment.
 */
export function nextPageStep(deps: Pick<SyncDeps, "pageTasksPerExecution" | "pageTasksPerSegment">, cursor: SyncCursor): SyncState["step"] {
  const budget = deps.pageTasksPerExecution ?? PAGE_TASKS_PER_EXECUTION;
  if (cursor.steps >= budget) return { outcome: "continue_as_new" };
  const segment = deps.pageTasksPerSegment ?? PAGE_TASKS_PER_SEGMENT;
  return cursor.steps > 0 && cursor.steps % segment === 0 ? { outcome: "next_segment" } : { outcome: "next_page" };
}

/**
 * A segment ends by elapsed time as well as by count: once it has run
 * SEGMENT_PAGE_START_SECONDS, a next page goes to the next segment instead, so
 * the page in flight keeps its room inside Express's 5 minutes
 * (EXPRESS_EXECUTION_SECONDS). Only a next page moves; a continuation, a
 * segment's end by count and the run's end stay as they are.
 */
export function endSegmentByTime(state: SyncState, segmentStartedAt: string | undefined, now: Date): SyncState {
  if (state.step.outcome !== "next_page" || segmentStartsPages(segmentStartedAt, now)) return state;
  return { ...state, step: { outcome: "next_segment" } };
}

/**
 * Whether the segment started at `segmentStartedAt` may still start a page at
 * `now`: before SEGMENT_PAGE_START_SECONDS have passed (unknown or unreadable:
 * yes, the count still ends it). The page task's early request leaves only
 * while this holds (sync-page.ts): past it the next page goes to the next
 * segment, which requests it itself.
 */
export function segmentStartsPages(segmentStartedAt: string | undefined, now: Date): boolean {
  if (segmentStartedAt === undefined) return true;
  const elapsedSeconds = (now.getTime() - Date.parse(segmentStartedAt)) / 1000;
  return !Number.isFinite(elapsedSeconds) || elapsedSeconds < SEGMENT_PAGE_START_SECONDS;
}

/**
 * Before the run goes on in a fresh execution, the lock forgets this one: its
 * end must not read as the run's death while the next one starts.
 */
export async function handOverIfContinuing(deps: SyncDeps, state: SyncState): Promise<SyncState> {
  if (state.step.outcome === "continue_as_new") {
    await deps.runs.handOver(state.run.connection_id, state.run.run_id, leaseUntil(deps.clock.now()));
  }
  return state;
}

/** What starting an entity reads of the connection: where its first run begins, and the rate its first slot takes. */
export type EntityStartConnection = Pick<StoredConnection, "sync_since" | "rate_limit">;

/** What the summary records for the entity that just ended, in the same write that starts the next one. */
export interface EntityEnded {
  readonly entity: SyncEntity;
  readonly outcome: EntityOutcome;
}

/**
 * Marks the entity running (and the one before it finished, in the same
 * write) and builds its first cursor (incremental entities start from their watermark).
 */
export async function startEntity(
  deps: SyncDeps,
  run: ExecutionRun,
  connection: EntityStartConnection,
  entity: SyncEntity,
  steps: number,
  ended?: EntityEnded,
): Promise<SyncCursor> {
  await deps.runs.entitiesMoved(run.connection_id, run.run_id, {
    finished: ended === undefined ? [] : summaryRowsOf(ended.entity),
    outcome: ended?.outcome ?? { status: "succeeded" },
    started: summaryRowsOf(entity),
  });
  const incremental = entityDefinition(entity).incremental;
  const stored = incremental ? await deps.records.getWatermark(run.connection_id, entity) : null;
  // A watermark past the present (stored before the rule, or by a source's clock gone wrong) would ask for nothing for
  // ever: it is not trusted, and the entity is read again from sync_since; its first page writes a trusted one over it.
  const watermark = trustedWatermark(stored, deps.clock.now());
  if (watermark !== stored) {
    deps.logger.warn("watermark past the present: read again from sync_since", { connection_id: run.connection_id, run_id: run.run_id, entity, watermark: stored });
  }
  // An audit reads the entity in full from sync_since and never moves the watermark: it classifies against it (heal-plan.ts).
  const from = runModeOf(run.run_id) === "audit" ? null : watermark;
  return {
    entity,
    page: 1,
    updated_since: incremental ? updatedSince(from, connection.sync_since) : null,
    watermark,
    previous: null,
    rate_limit: connection.rate_limit,
    throttle_attempts: 0,
    steps,
  };
}

/** Settles an entity and moves to the next one in sync order, or to the end of the run. */
export async function finishEntityAndAdvance(
  deps: SyncDeps,
  run: ExecutionRun,
  cursor: SyncCursor,
  outcome: EntityOutcome,
  connection: EntityStartConnection,
): Promise<SyncState> {
  const order = entitiesOfMode(runModeOf(run.run_id));
  const next = order[order.indexOf(cursor.entity) + 1];
  if (outcome.status === "succeeded" && runModeOf(run.run_id) === "audit") await closeAuditEntity(deps, run, cursor.entity as AuditEntity);
  // The entity's rows are written with the next entity's start (startEntity), the last entity's on their own.
  const nextCursor =
    next === undefined
      ? await deps.runs.entitiesMoved(run.connection_id, run.run_id, { finished: summaryRowsOf(cursor.entity), outcome, started: [] })
      : await startEntity(deps, run, connection, next, cursor.steps, { entity: cursor.entity, outcome });
  const log = outcome.status === "succeeded" ? deps.logger.info : deps.logger.warn;
  log("entity finished", {
    connection_id: run.connection_id,
    run_id: run.run_id,
    entity: cursor.entity,
    status: outcome.status,
    ...(outcome.status === "failed" ? { rule: outcome.failure.rule, error: outcome.failure.detail } : {}),
  });

  if (nextCursor === undefined) return { run, cursor: null, step: { outcome: "done" } };
  return { run, cursor: nextCursor, step: nextPageStep(deps, nextCursor) };
}

/**
 * An audit read the entity whole: it counts what the store holds and marks
 * (never deletes) what the source no longer returns. Safe to repeat: a
 * replayed last page closes the entity again with the same result.
 */
async function closeAuditEntity(deps: SyncDeps, run: ExecutionRun, entity: AuditEntity): Promise<void> {
  const closed = await deps.audits.closeEntity(run.connection_id, run.run_id, entity, deps.clock.now().toISOString());
  await deps.runs.auditEntityClosed(run.connection_id, run.run_id, entity, closed);
  if (closed.absentIds.length > 0) {
    deps.logger.warn("records the source no longer returns (kept: omission never deletes)", {
      connection_id: run.connection_id,
      run_id: run.run_id,
      entity,
      count: closed.absentIds.length,
      ids: closed.absentIds.slice(0, 10),
    });
  }
}
