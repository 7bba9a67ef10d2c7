import {
  ConnectionNotFoundError,
  errorNameOf,
  PageValidationError,
  PaginationError,
  RateLimitSlotsStaleError,
  StoredVersionNewerError,
  RecordTooLargeError,
  RunSupersededError,
  SourceAuthError,
  SourceHardError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  StoreUnavailableError,
  SyncQueueUnavailableError,
  SyncSinceChangedError,
  TokenDecryptionError,
  type ErrorClass,
} from "../core/errors";
import type { Fault } from "../core/metric-names";
import { SourceAddressRefusedError } from "../source-contract/source-address-refused-error";
import type { CaughtError } from "./sync-state";
import { InvalidTaskEventError } from "./task-event";

/**
 * Whose failure it is, by error class (its stable `name`): the one place the
 * service decides what pages us. Every SyncError of the sync is listed, so a
 * new one must be judged here (test/domain/sync/failure-fault.unit.test.ts checks it).
 *
 * The customer's: their source said 401/4xx/5xx/429, timed out, redirected,
 * sent a page that breaks the spec, or pointed base_url at a refused address;
 * or they changed the connection under the run (deleted it, moved sync_since).
 * Ours: the store, the key, the rate limiter starved of CPU, Step Functions
 * refusing a start, a superseded run (our lease judged a live run dead).
 */
const FAULTS: ReadonlyArray<readonly [ErrorClass, Fault]> = [
  [SourceAuthError, "customer"],
  [SourceNotImplementedError, "customer"],
  [SourceThrottledError, "customer"],
  [SourceTransientError, "customer"],
  [SourceHardError, "customer"],
  [SourceRedirectError, "customer"],
  [SourceAddressRefusedError, "customer"],
  [PageValidationError, "customer"],
  // A record of theirs too large for one transaction: their data, reported on the entity.
  [RecordTooLargeError, "customer"],
  [PaginationError, "customer"],
  [ConnectionNotFoundError, "customer"],
  [SyncSinceChangedError, "customer"],
  [StoreUnavailableError, "ours"],
  [TokenDecryptionError, "ours"],
  [RunSupersededError, "ours"],
  [RateLimitSlotsStaleError, "ours"],
  [StoredVersionNewerError, "ours"],
  [SyncQueueUnavailableError, "ours"],
  // A Task event not in its schema: a definition or an input of ours.
  [InvalidTaskEventError, "ours"],
];

/** The table by the classes' stable `name`: a Catch hands over only the name. */
export const FAULT_OF_ERROR_CLASS: Readonly<Record<string, Fault>> = Object.fromEntries(
  FAULTS.map(([errorClass, fault]) => [errorNameOf(errorClass), fault]),
);

/**
 * Any other class is ours: States.Timeout (a Task that outlived its timeout:
 * the source has its own shorter deadline), States.* and Lambda.* errors, AWS
 * SDK errors that escaped the store adapters, and plain Error/TypeError (a bug).
 */
export function faultOfErrorClass(errorClass: string): Fault {
  return Object.hasOwn(FAULT_OF_ERROR_CLASS, errorClass) ? FAULT_OF_ERROR_CLASS[errorClass]! : "ours";
}

/** The class of a thrown error: its `name` (stable for our typed errors and the AWS SDK's), "Error" otherwise. */
export function errorClassOf(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

/** A failure as the metrics and logs carry it: the error class and whose fault it is. */
export interface ClassifiedFailure {
  readonly error_class: string;
  readonly fault: Fault;
}

export function classifyThrown(error: unknown): ClassifiedFailure {
  const errorClass = errorClassOf(error);
  return { error_class: errorClass, fault: faultOfErrorClass(errorClass) };
}

/** The state machine puts the thrown error's name (or a States.* name) in `Error`. */
export function classifyCaught(caught: CaughtError): ClassifiedFailure {
  return { error_class: caught.Error, fault: faultOfErrorClass(caught.Error) };
}
