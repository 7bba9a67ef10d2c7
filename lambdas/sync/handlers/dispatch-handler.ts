import * as v from "valibot";
import { claimDispatchedRun, DispatchItemSchema, listDispatchPage, type DispatchClaim, type DispatchPage } from "../dispatch-syncs";
import type { StartSyncDeps } from "../sync-deps";
import { withStoreErrors } from "./store-errors";

/** What the two Task states send (their Parameters in statemachine/dispatch.asl.json name the task). */
const DispatchEventSchema = v.variant("task", [
  v.object({ task: v.literal("ListConnections"), cursor: v.nullable(v.string()) }),
  v.object({ task: v.literal("ClaimRun"), ...DispatchItemSchema.entries }),
]);

/**
 * The schedule tick's Task handler: one function for both Task states (ListConnections, ClaimRun), as one Lambda
 * serves both in AWS and the local engine calls it for either. Thin: parse, call one domain function.
 */
export function makeDispatchHandler(deps: StartSyncDeps, random: () => number = Math.random): (event: unknown) => Promise<DispatchPage | DispatchClaim> {
  return (event) =>
    withStoreErrors<DispatchPage | DispatchClaim>(() => {
      const parsed = v.parse(DispatchEventSchema, event);
      return parsed.task === "ListConnections" ? listDispatchPage(deps, parsed.cursor, random) : claimDispatchedRun(deps, parsed);
    });
}
