import * as v from "valibot";
import { SYNC_ENTITIES } from "../core/entities";
import { RunReferenceSchema } from "../core/run-reference";
import type { PageFingerprint } from "../ingestion/prepare-page";
import { AheadPageSchema } from "./fetch-ahead";

/*
 * The execution state between Task states, one schema per shape: the types
 * come from them, and every Task handler parses its event with them
 * (./task-event.ts), so a malformed state fails as InvalidTaskEventError
 * naming the field instead of a TypeError deep inside.
 */

const positiveInteger = v.pipe(v.number(), v.integer(), v.minValue(1));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Which run an execution belongs to, and which of the run's executions it is. */
export const ExecutionRunSchema = v.object({
  ...RunReferenceSchema.entries,
  /** Which execution of the run: 0 for the first, n for its n-th continuation (names it `<run id>-c<n>`). */
  generation: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type ExecutionRun = v.InferOutput<typeof ExecutionRunSchema>;

/** The previous page of an entity in this run; the ingestion's PageFingerprint, checked against it at compile time. */
export const PageFingerprintSchema = v.object({
  /** Digest of the page's ids in order; equal digests mean a repeated page. */
  idsDigest: v.nullable(v.string()),
  /** Largest compared timestamp seen so far in this entity's run (null-timestamp records skipped). */
  lastCompared: v.nullable(v.string()),
}) satisfies v.GenericSchema<PageFingerprint, PageFingerprint>;

/** Where the run is: travels in the execution state (and into a continuation), so it stays small. */
export const SyncCursorSchema = v.object({
  entity: v.picklist(SYNC_ENTITIES),
  /** 1-based page to fetch next. */
  page: positiveInteger,
  /** ISO-8601 with offset; null for /pipelines and /users. */
  updated_since: v.nullable(v.string()),
  /** The entity's committed watermark. */
  watermark: v.nullable(v.string()),
  /** The previous page of this entity in this run (repeat and ordering checks). */
  previous: v.nullable(PageFingerprintSchema),
  /**
   * The connection's rate_limit as last read. The next page takes its slot at
   * this rate while the connection is read again, so a changed rate applies
   * from the page after (as a rotated token does). Absent in cursors of runs
   * started before it existed: the page then reads the connection first.
   */
  rate_limit: v.optional(positiveInteger),
  /**
   * Sample ids the run's findings already hold per rule for this entity, so a
   * page appends only up to the bound (FINDING_SAMPLE_IDS) without reading them.
   * Absent: none yet (every entity's page 1, and runs begun before findings).
   */
  finding_samples: v.optional(v.record(v.string(), count)),
  /** Consecutive 429s on this page; the state machine gives up after 5 retries. */
  throttle_attempts: count,
  /** Page tasks run by this execution (history bound). */
  steps: count,
});
export type SyncCursor = v.InferOutput<typeof SyncCursorSchema>;

export const StepOutcomeSchema = v.variant("outcome", [
  v.object({
    outcome: v.literal("next_page"),
    /**
     * The cursor's page, fetched early by the task before it (fetch-ahead.ts),
     * within AHEAD_STATE_MAX_BYTES. Only a next page carries one, so a segment's
     * end hands no page to the parent. Absent: the page task requests its page itself.
     */
    ahead: v.optional(AheadPageSchema),
  }),
  v.object({ outcome: v.literal("continue_as_new") }),
  /** The Express child's segment is over: the parent starts the next one from this cursor. */
  v.object({ outcome: v.literal("next_segment") }),
  v.object({ outcome: v.literal("done") }),
  v.object({ outcome: v.literal("throttled"), retry_after_seconds: v.number(), detail: v.string() }),
]);
export type StepOutcome = v.InferOutput<typeof StepOutcomeSchema>;

/** The execution state between Task states. */
export const SyncStateSchema = v.object({
  run: ExecutionRunSchema,
  cursor: v.nullable(SyncCursorSchema),
  step: StepOutcomeSchema,
});
export type SyncState = v.InferOutput<typeof SyncStateSchema>;

/**
 * When the Express segment running this Task started ($$.Execution.StartTime,
 * given by the page loop's Parameters): a segment ends by elapsed time too.
 * Absent where no segment clock applies; a value that is not a time is
 * ignored (the count still ends the segment), never a failed page.
 */
const SegmentStartSchema = v.optional(v.string());

/** A page task's event: the state and its segment's start. */
export const PageTaskEventSchema = v.object({ ...SyncStateSchema.entries, segment_started_at: SegmentStartSchema });

/** What a Catch hands to the next state: Error is the error's name; Cause its message (AWS: a JSON envelope). */
export const CaughtErrorSchema = v.object({
  Error: v.string(),
  Cause: v.optional(v.string()),
});
export type CaughtError = v.InferOutput<typeof CaughtErrorSchema>;

/** The state a Catch hands on: the state as it was, with the error at `$.error` (ResultPath). */
export const CaughtStateSchema = v.object({ ...SyncStateSchema.entries, error: CaughtErrorSchema, segment_started_at: SegmentStartSchema });
export type CaughtState = v.InferOutput<typeof CaughtStateSchema>;
