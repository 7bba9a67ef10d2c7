import type { SyncEntity } from "../../lambdas/domain/core/entities";

/** One SyncPage task. Times in ms (performance.now). */
export interface PageSample {
  readonly entity: SyncEntity;
  readonly page: number;
  readonly startedAt: number;
  endedAt: number;
  /** Records in the fetched page (data.length); 0 when nothing was fetched. */
  records: number;
  hasMore: boolean;
  fetchMs: number;
  /**
   * Whole acquire() calls for this page's request (taken while the task reads the connection; a stale slot is
   * re-taken: then more than one): waiting for a slot plus the limiter's own DynamoDB calls.
   */
  acquireMs: number;
  /** When this page's request left for the source (ms after the task started). */
  fetchOffsetMs: number;
  /** The slot this page's request went out on (epoch ms, the limiter's clock), if it made one. */
  slotAt: number | null;
  /** Date.now() when the request was handed to the HTTP client (the clock of the slot and of the source's stamp). */
  sentAtEpoch: number | null;
  /** Date.now() when undici wrote its headers to the socket (its `undici:client:sendHeaders` diagnostics channel). */
  writtenAtEpoch: number | null;
  /** acquire() calls: 1, plus one for each slot that went stale before its request was sent. */
  acquires: number;
  /** The DynamoDB part of acquireMs: the limiter's own calls (its log's item), not the connection read made meanwhile. */
  acquireDdbMs: number;
  /** Every DynamoDB call of the task, the limiter's included (summed: overlapping calls count twice). */
  ddbMs: number;
  ddbCalls: number;
  /** Wall time with at least one DynamoDB call of the task in flight. */
  ddbBusyMs: number;
  /** DynamoDB round trips on the task's critical path: calls that started while none was in flight (calls that overlap count once). */
  ddbRoundTrips: number;
  commitMs: number;
  /** Every DynamoDB call of the task, labelled by what it is (see callLabel), in the order they started. */
  calls: DynamoDbCallSample[];
  failed: boolean;
}

/** One DynamoDB call of a page task: its label, when it started (ms after the task started) and its duration. */
export interface DynamoDbCallSample {
  readonly label: string;
  readonly offsetMs: number;
  readonly ms: number;
}

export const handlerMs = (sample: PageSample) => sample.endedAt - sample.startedAt;
/** The service's own time on a page: the task's time minus the source's answer (fetch). */
export const overheadMs = (sample: PageSample) => handlerMs(sample) - sample.fetchMs;
/**
 * Time the rate limit held the page up: waiting in acquire, minus its DynamoDB
 * calls. (A slot recorded ahead by the limiter's write lead is waited for after
 * acquire; that wait falls in the time before the fetch, fetchOffsetMs.)
 */
export const limiterWaitMs = (sample: PageSample) => sample.acquireMs - sample.acquireDdbMs;
/** Slots taken and left unused because they went stale before the request could leave: every acquire after the first. */
export const staleSlots = (sample: PageSample) => Math.max(0, sample.acquires - 1);
/** In-process work: validation, normalisation, planning, JSON, crypto, SDK marshalling not inside the call timer. */
export const inProcessMs = (sample: PageSample) => handlerMs(sample) - sample.fetchMs - limiterWaitMs(sample) - sample.ddbBusyMs;

/** A full page of leads in the middle of the entity (not its last page, which also finishes the entity). */
export const isFullLeadsPage = (sample: PageSample) =>
  sample.entity === "leads" && sample.records === 100 && sample.hasMore && !sample.failed;

/** Any Task state's run on the engine (or in the plain loop). */
export interface TaskSample {
  readonly state: string;
  /** The execution that ran it (a page-loop segment's, for a page task on the state machine). */
  readonly executionId?: string;
  readonly startedAt: number;
  readonly endedAt: number;
}
