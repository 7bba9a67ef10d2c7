import * as v from "valibot";
import { claimDispatchedRun, DispatchItemSchema, DispatchPageRequestSchema, listDispatchPage, type DispatchClaim, type DispatchPage } from "../dispatch-syncs";
import type { StartSyncDeps } from "../sync-deps";
import { withStoreErrors } from "./store-errors";

/**
 * The schedule tick's Task handlers, keyed by the Task state that calls them
 * (statemachine/dispatch.asl.json): the same functions back the Lambdas in
 * AWS and the local engine.
 */
export interface DispatchHandlers {
  readonly ListConnections: (event: unknown) => Promise<DispatchPage>;
  readonly ClaimRun: (event: unknown) => Promise<DispatchClaim>;
}

export function makeDispatchHandlers(deps: StartSyncDeps, random: () => number = Math.random): DispatchHandlers {
  return {
    ListConnections: (event) => withStoreErrors(() => listDispatchPage(deps, v.parse(DispatchPageRequestSchema, event).cursor, random)),
    ClaimRun: (event) => withStoreErrors(() => claimDispatchedRun(deps, v.parse(DispatchItemSchema, event))),
  };
}
