import * as v from "valibot";
import { SYNC_ENTITIES } from "../core/entities";
import { SOURCE_REQUEST_ERRORS, SourceThrottledError, SourceTransientError, SyncError, errorNameOf, type SyncErrorOptions } from "../core/errors";
import { AHEAD_STATE_MAX_BYTES } from "../core/limits";
import type { StoredConnection } from "../core/connection";
import type { SourcePage } from "../core/ports/source-client";

/*
 * Fetch ahead, commit in order (docs/throughput.md#fetch-ahead): while page N
 * is validated and committed, page N+1's request is already on its way; its
 * answer waits for page N+1's task in the execution state (`ahead`), as the
 * source sent it, to be validated and committed there. Only an answer from the
 * source is handed on (a page, or the error its request ended in); anything
 * that failed before a request left (the connection read, the slot) is dropped
 * and the next task does it again itself.
 */

const positiveInteger = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The source errors an early request can end in: the next task meets them as its own request's. */
const HANDED_ERRORS = SOURCE_REQUEST_ERRORS;
type HandedError = (typeof HANDED_ERRORS)[number];
/** Each by its stable name, the one the state carries (and the state machine's ErrorEquals know). */
const HANDED_BY_NAME = new Map<string, HandedError>(HANDED_ERRORS.map((errorClass) => [errorNameOf(errorClass), errorClass]));
const handedNames = [...HANDED_BY_NAME.keys()] as [string, ...string[]];

export const AheadPageSchema = v.object({
  entity: v.picklist(SYNC_ENTITIES),
  page: positiveInteger,
  updated_since: v.nullable(v.string()),
  /** What the early request's own connection read said that an entity's end and the page's commit need: no second read for it. */
  connection: v.object({
    sync_since: v.string(),
    rate_limit: positiveInteger,
    /** The /events type that records stage moves (core/stage-event-type.ts); absent: unset. */
    stage_event_type: v.optional(v.string()),
  }),
  answer: v.variant("kind", [
    /** `data` is the page's records as JSON text: opaque to the state machine, whatever keys or depth the source sent. */
    v.object({ kind: v.literal("page"), data: v.string(), has_more: v.boolean() }),
    v.object({
      kind: v.literal("error"),
      name: v.picklist(handedNames),
      detail: v.string(),
      http_status: v.nullable(v.number()),
      rule: v.nullable(v.string()),
      retry_after_seconds: v.optional(v.number()),
      source_down: v.optional(v.boolean()),
    }),
  ]),
});
export type AheadPage = v.InferOutput<typeof AheadPageSchema>;

/** Which request an ahead answers: the same entity, page and updated_since as the cursor. */
export interface AheadRequest {
  readonly entity: AheadPage["entity"];
  readonly page: number;
  readonly updated_since: string | null;
}

export function answers(ahead: AheadPage | undefined, request: AheadRequest): ahead is AheadPage {
  return ahead !== undefined && ahead.entity === request.entity && ahead.page === request.page && ahead.updated_since === request.updated_since;
}

/** The page the ahead holds, or its request's error thrown again, as the task's own request would have. */
export function answerOf(ahead: AheadPage): SourcePage {
  const { answer } = ahead;
  if (answer.kind === "page") return { data: JSON.parse(answer.data) as unknown[], hasMore: answer.has_more };
  const options = { ...(answer.http_status === null ? {} : { httpStatus: answer.http_status }), ...(answer.rule === null ? {} : { rule: answer.rule }) };
  const errorClass = HANDED_BY_NAME.get(answer.name)!;
  if (errorClass === SourceThrottledError) throw new SourceThrottledError(answer.detail, answer.retry_after_seconds ?? 1, options);
  if (errorClass === SourceTransientError) throw new SourceTransientError(answer.detail, { ...options, sourceDown: answer.source_down ?? false });
  throw new (errorClass as new (detail: string, options: SyncErrorOptions) => SyncError)(answer.detail, options);
}

/** Whether the ahead's answer is an error the state machine's Retry block retries (a 5xx, a time-out). */
export function isRetriedAnswer(ahead: AheadPage): boolean {
  return ahead.answer.kind === "error" && HANDED_BY_NAME.get(ahead.answer.name) === SourceTransientError;
}

/** What an early request came back with: the page and the connection it was read with, or why it failed. */
export type EarlyOutcome =
  | { readonly kind: "page"; readonly page: SourcePage; readonly connection: StoredConnection }
  | { readonly kind: "error"; readonly error: unknown; readonly connection?: StoredConnection };

/** An early request under way: settled never rejects; cancel stops it before it leaves, if it has not yet. */
export interface EarlyFetch {
  readonly settled: Promise<EarlyOutcome>;
  cancel(): void;
}

/** The early request was stopped before it left: its page failed, its commit was refused, or its segment starts no more pages. Never reaches the state machine. */
export class FetchAheadCancelledError extends Error {
  override readonly name = "FetchAheadCancelledError";
}

/**
 * Starts `fetch` at once; it checks `cancelled()` right before its request
 * leaves (after its slot), so a page that fails first costs no request.
 */
export function startEarly(
  fetch: (cancelled: () => boolean, read: (connection: StoredConnection) => void) => Promise<{ page: SourcePage; connection: StoredConnection }>,
): EarlyFetch {
  let cancelled = false;
  let connection: StoredConnection | undefined;
  const settled = fetch(
    () => cancelled,
    (read) => {
      connection = read;
    },
  ).then(
    ({ page, connection: used }): EarlyOutcome => ({ kind: "page", page, connection: used }),
    (error: unknown): EarlyOutcome => ({ kind: "error", error, ...(connection === undefined ? {} : { connection }) }),
  );
  return {
    settled,
    cancel: () => {
      cancelled = true;
    },
  };
}

/** Why an early answer is not handed on; the next task then requests the page itself. */
export type Dropped = "not-an-answer" | "over-budget" | "not-serialisable";

/**
 * The ahead for the next task, or why there is none. `stateBytes` is the size
 * of the state without it: the state a Task returns is capped (256 KiB on
 * Step Functions) and a Catch adds the error to it, so the whole stays within
 * AHEAD_STATE_MAX_BYTES.
 */
export function aheadOf(
  outcome: EarlyOutcome,
  request: AheadRequest,
  stateBytes: number,
): { readonly ahead: AheadPage } | { readonly dropped: Dropped } {
  const answer = answerFrom(outcome);
  if (answer === "not-an-answer" || answer === "not-serialisable") return { dropped: answer };
  // A source's answer always follows the request's connection read.
  if (outcome.connection === undefined) return { dropped: "not-an-answer" };
  const { sync_since, rate_limit, stage_event_type } = outcome.connection;
  const ahead: AheadPage = {
    entity: request.entity,
    page: request.page,
    updated_since: request.updated_since,
    connection: { sync_since, rate_limit, ...(stage_event_type === undefined ? {} : { stage_event_type }) },
    answer,
  };
  // The key, quotes and commas the field adds are counted with it.
  const bytes = stateBytes + Buffer.byteLength(JSON.stringify({ ahead }), "utf8");
  return bytes > AHEAD_STATE_MAX_BYTES ? { dropped: "over-budget" } : { ahead };
}

function answerFrom(outcome: EarlyOutcome): AheadPage["answer"] | "not-an-answer" | "not-serialisable" {
  if (outcome.kind === "page") {
    try {
      return { kind: "page", data: JSON.stringify(outcome.page.data), has_more: outcome.page.hasMore };
    } catch {
      // A record nested deeper than JSON.stringify's stack: its own task refuses it (record.depth) after fetching it again.
      return "not-serialisable";
    }
  }
  const { error } = outcome;
  const errorClass = HANDED_ERRORS.find((handed) => error instanceof handed);
  if (errorClass === undefined || !(error instanceof SyncError)) return "not-an-answer";
  return {
    kind: "error",
    name: errorNameOf(errorClass),
    detail: error.detail,
    http_status: error.httpStatus,
    rule: error.ruleId,
    ...(error instanceof SourceThrottledError ? { retry_after_seconds: error.retryAfterSeconds } : {}),
    ...(error instanceof SourceTransientError ? { source_down: error.sourceDown } : {}),
  };
}
