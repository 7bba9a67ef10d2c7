import type { RunReference } from "../../lambdas/domain/core/run-reference";
import { DISPATCH_PAGE_SIZE, handOversOf, type DispatchItem, type SegmentOutput } from "../../lambdas/domain/sync/dispatch-tick";
import { DISPATCH_MAP_STATE, loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { read, walk, type AslDefinition } from "./asl-walk";
import type { runWalker, RunWalk } from "./run-walk";

/**
 * What a schedule tick costs besides the runs it starts, walked from
 * statemachine/dispatch.asl.json: the tick execution's own states
 * (ListConnections a page of DISPATCH_PAGE_SIZE at a time, the Map, ...), and
 * for every batch of connections the Distributed Map's child workflow: one
 * transition for starting it, plus every state it enters (it is a Standard
 * execution; its inline Maps' iterations are not billed, their states are).
 * Each run's first segment is walked as the child starts it, and a run that
 * needs more goes on in the Standard sync state machine as the child hands it
 * over.
 * AWS: "you're charged one state transition for each child workflow execution
 * that the Distributed Map state starts" (Step Functions developer guide,
 * "Transitions in Distributed Map state", concepts-transitions.html).
 */
export interface DispatchWalk {
  readonly connections: number;
  /** The tick execution's own states, for the whole tick (shared by its connections). */
  readonly tickTransitions: number;
  /** Distributed Map child executions started (one per batch): one transition each. */
  readonly childStarts: number;
  /** States the children entered, over all of them. */
  readonly childTransitions: number;
  /** Connections per Map child (the definition's batch_size for the cap). */
  readonly batchSize: number;
  /** Dispatcher Lambda invocations (ListConnections pages; ClaimRuns and SettleFirstSegments per batch), over the tick. */
  readonly dispatcherInvocations: number;
  /** Every run the tick started, walked by the sync cost model. */
  readonly runs: readonly RunWalk[];
  /** Standard transitions of one tick, everything included: the tick, the children, the runs. */
  readonly standardTransitions: number;
}

/**
 * Walks one tick of `connections` connections, none with a run in progress,
 * under the cap `maxConcurrentRuns` (which sets the batch size); `newRun`
 * gives each run's walker.
 */
export function walkDispatchTick(connections: number, maxConcurrentRuns: number, newRun: () => ReturnType<typeof runWalker>): DispatchWalk {
  const definition = loadDispatchDefinition(maxConcurrentRuns) as unknown as AslDefinition;
  type MapState = { ItemsPath: string; ItemProcessor: AslDefinition };
  const map = definition.States[DISPATCH_MAP_STATE] as unknown as MapState;
  const { batch_size: batchSize, max_children: maxChildren } = (definition.States["ListConnections"] as unknown as { Parameters: { batch_size: number; max_children: number } }).Parameters;
  let listed = 0;
  let childStarts = 0;
  let childTransitions = 0;
  let dispatcherInvocations = 0;

  const walkers = new Map<string, ReturnType<typeof runWalker>>();
  const ends = new Map<string, { endedIn: string; output: unknown }>();
  const inline = (mapName: string, input: unknown, script: (stateName: string, input: unknown) => unknown): unknown[] => {
    const inner = map.ItemProcessor.States[mapName] as unknown as MapState;
    // Each iteration's states are billed as the child's (an inline iteration itself is not).
    return (read(input, inner.ItemsPath) as unknown[]).map((item) => {
      const iteration = walk(inner.ItemProcessor, item, script);
      childTransitions += iteration.entered.length;
      return iteration.output;
    });
  };
  const itemScript = (stateName: string, input: unknown): unknown => {
    switch (stateName) {
      case "FirstSegment": {
        const run = input as RunReference;
        const output = walkers.get(run.run_id)!.segment({ state: input, execution_id: null });
        ends.set(run.run_id, { endedIn: `segment: ${(output as { step: { outcome: string } }).step.outcome}`, output });
        return { Output: output };
      }
      case "RunSync": {
        const state = input as { run: RunReference; cursor: unknown };
        const { run } = state;
        const end = walkers.get(run.run_id)!.execution({ ...run, generation: 0, continuation: state.cursor });
        ends.set(run.run_id, end);
        return { Output: end.output };
      }
      default:
        throw new Error(`the happy path of a dispatched run does not reach ${stateName}`);
    }
  };
  const childScript = (stateName: string, input: unknown): unknown => {
    switch (stateName) {
      case "ClaimRuns": {
        dispatcherInvocations += 1;
        const items = read(input, "$.items") as DispatchItem[];
        const claimed = items.map((item) => ({ ...item, run_id: `r-${item.connection_id}` }));
        for (const run of claimed) walkers.set(run.run_id, newRun());
        return { runs: claimed };
      }
      case "FirstSegments":
      case "HandOvers":
        return inline(stateName, input, itemScript);
      case "SettleFirstSegments":
        dispatcherInvocations += 1;
        // The idle path releases nothing (no BeginRun failed): what it returns is the hand-overs.
        return { handovers: handOversOf(read(input, "$.segments") as SegmentOutput[]) };
      default:
        throw new Error(`the happy path of a dispatched batch does not reach ${stateName}`);
    }
  };
  const tickScript = (stateName: string, input: unknown): unknown => {
    switch (stateName) {
      case "ListConnections": {
        dispatcherInvocations += 1;
        const size = Math.min(DISPATCH_PAGE_SIZE, connections - listed);
        const items = Array.from({ length: size }, (_, i) => ({ business_account_id: "a", connection_id: `c${listed + i}` }));
        listed += size;
        const batches = [];
        for (let at = 0; at < items.length; at += batchSize) batches.push({ items: items.slice(at, at + batchSize) });
        // No run is live (the walk's premise): the page gets every child the cap allows.
        return { batches, cursor: listed < connections ? `after-${listed}` : null, paused: 0, live_runs: 0, children: maxChildren };
      }
      case DISPATCH_MAP_STATE: {
        for (const batch of read(input, map.ItemsPath) as unknown[]) {
          childStarts += 1;
          // Walked before it is added: the inline Maps inside add their iterations' states as it goes.
          const walked = walk(map.ItemProcessor, batch, childScript);
          childTransitions += walked.entered.length;
        }
        return null;
      }
      default:
        throw new Error(`the happy path of a tick does not reach ${stateName}`);
    }
  };

  const tick = walk(definition, {}, tickScript);
  const tickTransitions = tick.entered.length;
  const runs = [...walkers].map(([id, walker]) => walker.totals(ends.get(id)!));
  const runTransitions = runs.reduce((sum, run) => sum + run.standardTransitions, 0);
  return {
    connections,
    batchSize,
    tickTransitions,
    childStarts,
    childTransitions,
    dispatcherInvocations,
    runs,
    standardTransitions: tickTransitions + childStarts + childTransitions + runTransitions,
  };
}
