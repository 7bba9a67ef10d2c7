import { DISPATCH_PAGE_SIZE } from "../../lambdas/sync/dispatch-syncs";
import { DISPATCH_MAP_STATE, loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { read, walk, type AslDefinition } from "./asl-walk";
import type { RunWalk } from "./cost-model";

/**
 * What a schedule tick costs besides the runs it starts, walked from
 * statemachine/dispatch.asl.json: the tick execution's own states
 * (ListConnections a page of DISPATCH_PAGE_SIZE at a time, the Map, ...), and
 * for every connection the Distributed Map's child workflow: one transition
 * for starting it, plus every state it enters (it is a Standard execution).
 * AWS: "you're charged one state transition for each child workflow execution
 * that the Distributed Map state starts" (Step Functions developer guide,
 * "Transitions in Distributed Map state", concepts-transitions.html).
 */
export interface DispatchWalk {
  readonly connections: number;
  /** The tick execution's own states, for the whole tick (shared by its connections). */
  readonly tickTransitions: number;
  /** Distributed Map child executions started (one per connection): one transition each. */
  readonly childStarts: number;
  /** States the children entered, over all of them. */
  readonly childTransitions: number;
  /** Dispatcher Lambda invocations (ListConnections pages and ClaimRun), over the tick. */
  readonly dispatcherInvocations: number;
  /** Every run the tick started, walked by the sync cost model. */
  readonly runs: readonly RunWalk[];
  /** Standard transitions of one tick, everything included: the tick, the children, the runs. */
  readonly standardTransitions: number;
}

/** Walks one tick of `connections` connections, none with a run in progress; `runOne` walks each run. */
export function walkDispatchTick(connections: number, runOne: () => RunWalk): DispatchWalk {
  const definition = loadDispatchDefinition(1) as unknown as AslDefinition;
  const map = definition.States[DISPATCH_MAP_STATE] as unknown as { ItemsPath: string; ItemProcessor: AslDefinition };
  let listed = 0;
  let childStarts = 0;
  let childTransitions = 0;
  let dispatcherInvocations = 0;
  const runs: RunWalk[] = [];

  const childScript = (stateName: string, input: unknown): unknown => {
    const item = input as { business_account_id: string; connection_id: string };
    switch (stateName) {
      case "ClaimRun":
        dispatcherInvocations += 1;
        return { claimed: true, run: { ...item, run_id: `r-${item.connection_id}` } };
      case "RunSync": {
        const run = runOne();
        runs.push(run);
        return { Output: run.output };
      }
      default:
        throw new Error(`the happy path of a dispatched run does not reach ${stateName}`);
    }
  };
  const tickScript = (stateName: string, input: unknown): unknown => {
    switch (stateName) {
      case "ListConnections": {
        dispatcherInvocations += 1;
        const size = Math.min(DISPATCH_PAGE_SIZE, connections - listed);
        const items = Array.from({ length: size }, (_, i) => ({ business_account_id: "a", connection_id: `c${listed + i}` }));
        listed += size;
        return { items, cursor: listed < connections ? `after-${listed}` : null, paused: 0 };
      }
      case DISPATCH_MAP_STATE: {
        for (const item of read(input, map.ItemsPath) as unknown[]) {
          childStarts += 1;
          childTransitions += walk(map.ItemProcessor, item, childScript).entered.length;
        }
        return null;
      }
      default:
        throw new Error(`the happy path of a tick does not reach ${stateName}`);
    }
  };

  const tick = walk(definition, {}, tickScript);
  const tickTransitions = tick.entered.length;
  const runTransitions = runs.reduce((sum, run) => sum + run.standardTransitions, 0);
  return {
    connections,
    tickTransitions,
    childStarts,
    childTransitions,
    dispatcherInvocations,
    runs,
    standardTransitions: tickTransitions + childStarts + childTransitions + runTransitions,
  };
}
