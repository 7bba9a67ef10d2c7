import {
  ConnectionNotFoundError,
  errorNameOf,
  PageValidationError,
  PaginationError,
  RateLimitSlotsStaleError,
  RecordTooLargeError,
  RunSupersededError,
  SourceAuthError,
  SourceHardError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  StoredVersionNewerError,
  StoreUnavailableError,
  SyncQueueUnavailableError,
  SyncSinceChangedError,
  TokenDecryptionError,
  type ErrorClass,
} from "../core/errors";
import type { Fault } from "../core/metric-names";
import { requiredPresent } from "../source-contract/rules/endpoint-rules";
import { envelopeJson } from "../source-contract/rules/envelope-rules";
import * as failures from "../source-contract/rules/failure-rules";
import { noRepeatPage } from "../source-contract/rules/paging-rules";
import { rateRetriesExhausted } from "../source-contract/rules/rate-rules";
import { recordFields } from "../source-contract/rules/record-rules";
import { SourceAddressRefusedError } from "../source-contract/source-address-refused-error";
import { InvalidTaskEventError } from "./task-event";

/**
 * Every error class of the sync, judged once: whose fault it is (what pages
 * us: failure-fault.ts) and, when its throw site names none, the catalog's
 * rule it broke (what the owner reads: entity-failure.ts; a class with none
 * is service.completes, and a SourceTransientError or SourceHardError with a
 * status is refined there). Every SyncError of the sync is listed, so a new
 * one must be judged here (test/domain/sync/failure-fault.unit.test.ts).
 *
 * The customer's: their source said 401/4xx/5xx/429, timed out, redirected,
 * sent a page that breaks the spec, or pointed base_url at a refused address;
 * or they changed the connection under the run (deleted it, moved sync_since).
 * Ours: the store, the key, the rate limiter starved of CPU, Step Functions
 * refusing a start, a superseded run (our lease judged a live run dead).
 */
const ERROR_CLASSES: ReadonlyArray<readonly [ErrorClass, Fault, string?]> = [
  [SourceAuthError, "customer", failures.authTokenAccepted.id],
  [SourceNotImplementedError, "customer", requiredPresent.id],
  [SourceThrottledError, "customer", rateRetriesExhausted.id],
  [SourceTransientError, "customer", failures.sourceReachable.id],
  [SourceHardError, "customer", envelopeJson.id],
  [SourceRedirectError, "customer", failures.sourceNoRedirect.id],
  [SourceAddressRefusedError, "customer", failures.sourceBaseUrlAllowed.id],
  [PageValidationError, "customer", recordFields.id],
  // A record of theirs too large for one transaction: their data, reported on the entity.
  [RecordTooLargeError, "customer", failures.recordStorableSize.id],
  [PaginationError, "customer", noRepeatPage.id],
  [ConnectionNotFoundError, "customer", failures.connectionExists.id],
  [SyncSinceChangedError, "customer", failures.connectionSyncSinceStable.id],
  [StoreUnavailableError, "ours", failures.serviceAvailable.id],
  [TokenDecryptionError, "ours", failures.connectionTokenReadable.id],
  [RunSupersededError, "ours"],
  [RateLimitSlotsStaleError, "ours", failures.serviceAvailable.id],
  [StoredVersionNewerError, "ours", failures.serviceAvailable.id],
  [SyncQueueUnavailableError, "ours", failures.serviceAvailable.id],
  // A Task event not in its schema: a definition or an input of ours.
  [InvalidTaskEventError, "ours"],
];

/** Whose fault each class is, by its stable `name`: a Catch hands over only the name. */
export const FAULT_OF_ERROR_CLASS: Readonly<Record<string, Fault>> = Object.fromEntries(
  ERROR_CLASSES.map(([errorClass, fault]) => [errorNameOf(errorClass), fault]),
);

/** The rule of each class whose throw site names none, by its stable `name`. */
export const RULE_OF_ERROR_CLASS: Readonly<Record<string, string>> = Object.fromEntries(
  ERROR_CLASSES.flatMap(([errorClass, , rule]) => (rule === undefined ? [] : [[errorNameOf(errorClass), rule]])),
);
