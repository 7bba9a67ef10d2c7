import { SYNC_ENTITIES, type SyncEntity } from "../../lambdas/domain/core/entities";
import { nextPageStep } from "../../lambdas/domain/sync/entity-steps";
import type { SyncCursor, SyncState } from "../../lambdas/domain/sync/sync-state";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../statemachine/sync-definition";
import { walk, type AslDefinition } from "./asl-walk";
import { EXPRESS_DURATION_STEP_SECONDS } from "./prices";

/**
 * One sync run walked through the definitions themselves (the Standard parent and the Express page loop, state by
 * state: ./asl-walk.ts), with page tasks that answer as lambdas/domain/sync/sync-page.ts does: what cost-model.ts
 * and the dispatch walk price.
 */

/** Billed duration of one page task (0.2 s source, validation, 3 DynamoDB round trips): docs/cost.md. */
export const PAGE_TASK_SECONDS = 0.3;
/** Billed duration of the other Task functions (BeginRun, EntityFailed, StopRun, FinishRun): a few DynamoDB calls. */
export const OTHER_TASK_SECONDS = 0.1;

export const LAMBDA_TASKS = ["BeginRun", "SyncPage", "EntityFailed", "StopRun", "FinishRun"] as const;

export interface RunWalk {
  /** Standard transitions, over every execution of the run. */
  readonly standardTransitions: number;
  readonly standardExecutions: number;
  /** Express executions (segments) and the states they entered (not billed: Express bills requests and duration). */
  readonly expressExecutions: number;
  readonly expressStates: number;
  /** Lambda invocations by Task state. */
  readonly invocations: Readonly<Record<(typeof LAMBDA_TASKS)[number], number>>;
  /** Billed Express seconds: each segment's Lambda time, rounded up to 100 ms. */
  readonly expressBilledSeconds: number;
  readonly pages: number;
  /** How the parent ended. */
  readonly endedIn: string;
  /** The last execution's output (what the dispatch's RunSync gets back). */
  readonly output: unknown;
}

/** Walks one run whose entities have these many pages (at least 1 each: an empty entity is one empty page). */
export function walkRun(pagesPerEntity: Readonly<Record<SyncEntity, number>>): RunWalk {
  const walker = runWalker(pagesPerEntity);
  return walker.totals(walker.execution({ business_account_id: "a", connection_id: "c", run_id: "r" }));
}

/**
 * One run walked piece by piece, as the schedule tick drives it
 * (bin/cost/dispatch-walk.ts): `segment` walks one Express segment started
 * directly (the tick's FirstSegment), `execution` walks a Standard execution
 * from its input and every continuation after it; `totals` sums them.
 */
export function runWalker(pagesPerEntity: Readonly<Record<SyncEntity, number>>) {
  const parent = loadSyncDefinition() as AslDefinition;
  const child = loadSyncPagesDefinition() as AslDefinition;
  const invocations = Object.fromEntries(LAMBDA_TASKS.map((task) => [task, 0])) as Record<(typeof LAMBDA_TASKS)[number], number>;
  let standardTransitions = 0;
  let standardExecutions = 0;
  let expressExecutions = 0;
  let expressStates = 0;
  let expressBilledSeconds = 0;
  let pages = 0;
  let continuation: unknown;
  const deps = {};

  const advance = (cursor: SyncCursor): SyncState => {
    const run = { business_account_id: "a", connection_id: "c", run_id: "r", generation: 0 };
    if (cursor.page < pagesPerEntity[cursor.entity]) {
      const next = { ...cursor, page: cursor.page + 1 };
      return { run, cursor: next, step: nextPageStep(deps, next) };
    }
    const following = SYNC_ENTITIES[SYNC_ENTITIES.indexOf(cursor.entity) + 1];
    if (following === undefined) return { run, cursor: null, step: { outcome: "done" } };
    const next = { ...cursor, entity: following, page: 1 };
    return { run, cursor: next, step: nextPageStep(deps, next) };
  };
  const firstCursor = (): SyncCursor => ({
    entity: SYNC_ENTITIES[0],
    page: 1,
    updated_since: null,
    watermark: null,
    previous: null,
    throttle_attempts: 0,
    steps: 0,
  });

  const childScript = (segmentSeconds: { value: number }) => (stateName: string, input: unknown) => {
    if (stateName in invocations) invocations[stateName as keyof typeof invocations] += 1;
    switch (stateName) {
      case "BeginRun": {
        const given = (input as { state: { continuation?: SyncCursor } }).state.continuation;
        segmentSeconds.value += OTHER_TASK_SECONDS;
        const cursor = given === undefined ? firstCursor() : { ...given, steps: 0 };
        return { run: { business_account_id: "a", connection_id: "c", run_id: "r", generation: 0 }, cursor, step: { outcome: "next_page" } };
      }
      case "SyncPage": {
        pages += 1;
        segmentSeconds.value += PAGE_TASK_SECONDS;
        const state = input as SyncState;
        return advance({ ...state.cursor!, steps: state.cursor!.steps + 1 });
      }
      case "FinishRun":
        segmentSeconds.value += OTHER_TASK_SECONDS;
        return { run_id: "r", status: "succeeded" };
      default:
        throw new Error(`the happy path does not reach ${stateName}`);
    }
  };
  const segment = (input: unknown): unknown => {
    const segmentSeconds = { value: 0 };
    const walked = walk(child, input, childScript(segmentSeconds));
    expressExecutions += 1;
    expressStates += walked.entered.length;
    expressBilledSeconds += Math.ceil(segmentSeconds.value / EXPRESS_DURATION_STEP_SECONDS - 1e-9) * EXPRESS_DURATION_STEP_SECONDS;
    return walked.output;
  };
  const parentScript = (stateName: string, input: unknown) => {
    switch (stateName) {
      case "RunPages":
        return { Output: segment({ state: input, execution_id: "parent" }) };
      case "ContinueAsNew":
        continuation = { continuation: (input as SyncState).cursor };
        return {};
      default:
        throw new Error(`the happy path does not reach ${stateName}`);
    }
  };

  /** A Standard execution from this input, and its continuations: how the last one ended and its output. */
  const execution = (first: unknown): { endedIn: string; output: unknown } => {
    let input = first;
    for (;;) {
      continuation = undefined;
      const walked = walk(parent, input, parentScript);
      standardExecutions += 1;
      standardTransitions += walked.entered.length;
      if (continuation === undefined) return { endedIn: walked.endedIn, output: walked.output };
      input = continuation;
    }
  };
  const totals = (end: { endedIn: string; output: unknown }): RunWalk => ({
    standardTransitions,
    standardExecutions,
    expressExecutions,
    expressStates,
    invocations: { ...invocations },
    expressBilledSeconds,
    pages,
    endedIn: end.endedIn,
    output: end.output,
  });
  return { segment, execution, totals };
}
