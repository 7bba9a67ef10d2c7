import * as v from "valibot";
import {
  claimDispatchedRuns,
  DISPATCH_PAGE_SIZE,
  DispatchItemSchema,
  planDispatchPage,
  settleFirstSegments,
  releaseDispatchedRun,
  SegmentOutputSchema,
  type PlannedDispatchPage,
} from "../../domain/sync/dispatch-tick";
import { RunReferenceSchema } from "../../domain/core/run-reference";
import type { StartSyncDeps } from "../../domain/sync/sync-deps";

const wholeAboveZero = v.pipe(v.number(), v.integer(), v.minValue(1));

/** What the Task states send (their Parameters in statemachine/dispatch.asl.json name the task). */
const DispatchEventSchema = v.variant("task", [
  v.object({
    task: v.literal("ListConnections"),
    cursor: v.nullable(v.string()),
    batch_size: wholeAboveZero,
    max_runs: wholeAboveZero,
    max_children: wholeAboveZero,
  }),
  v.object({ task: v.literal("ClaimRuns"), items: v.array(DispatchItemSchema) }),
  v.object({ task: v.literal("SettleFirstSegments"), segments: v.array(SegmentOutputSchema) }),
  // error: the name the Task's Catch caught (its Error field), for the DispatchStartFailures alarm.
  v.object({ task: v.literal("ReleaseRun"), ...RunReferenceSchema.entries, error: v.optional(v.string()) }),
]);

type DispatchReply = PlannedDispatchPage | Awaited<ReturnType<typeof claimDispatchedRuns>> | Awaited<ReturnType<typeof settleFirstSegments>> | Record<string, never>;

/**
 * The schedule tick's Task handler: one function for its Task states (ListConnections, ClaimRuns, SettleFirstSegments, ReleaseRun), as
 * one Lambda serves them all in AWS and the local engine calls it for each. Thin: parse, call one domain function.
 */
export function makeDispatchHandler(deps: StartSyncDeps, random: () => number = Math.random): (event: unknown) => Promise<DispatchReply> {
  return async (event) => {
    const parsed = v.parse(DispatchEventSchema, event);
    switch (parsed.task) {
      case "ListConnections":
        return planDispatchPage(deps, parsed.cursor, { maxRuns: parsed.max_runs, maxChildren: parsed.max_children }, random, DISPATCH_PAGE_SIZE, parsed.batch_size);
      case "ClaimRuns":
        return claimDispatchedRuns(deps, parsed.items);
      case "SettleFirstSegments":
        return settleFirstSegments(deps, parsed.segments);
      case "ReleaseRun": {
        const { task: _task, error, ...run } = parsed;
        await releaseDispatchedRun(deps, run, error);
        return {};
      }
    }
  };
}
