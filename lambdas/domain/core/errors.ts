import { truncateText } from "./characters";
import { ERROR_DETAIL_MAX_CHARS } from "./limits";

/**
 * Typed errors of the sync. Each `name` is stable: the state machine matches
 * it in `ErrorEquals`, the onboarding API maps it to an HTTP status, and the
 * run summary shows it. Never rename one without changing statemachine/.
 */

/** A concrete typed error class; its instances carry the stable `name`. */
export type ErrorClass = new (...args: never[]) => Error;

/**
 * The stable `name` of a typed error class, for the tables that Step Functions
 * and the OpenAPI document know only by name. Read off a placeholder instance:
 * `name` is an instance field, and the class's own name is minified in the bundle.
 */
export function errorNameOf(errorClass: ErrorClass): string {
  // Every typed error's constructor takes text first (a detail, a record id, a field) or nothing.
  return new (errorClass as unknown as new (text: string) => Error)("").name;
}

/** Cuts a failure detail to the spec's 300 characters without splitting a character. */
export function cutDetail(text: string): string {
  return truncateText(text, ERROR_DETAIL_MAX_CHARS);
}

/** The record a failure is about: its id (null when it has none the service can use) and the field, when one is. */
export interface FailedRecord {
  readonly id: string | null;
  readonly field: string | null;
}

export interface SyncErrorOptions {
  readonly cause?: unknown;
  readonly httpStatus?: number;
  /** The rule's id in the catalog (lambdas/domain/source-contract/rules/catalog.ts) when the throw site knows it better than the class does. */
  readonly rule?: string;
  readonly record?: FailedRecord;
}

export abstract class SyncError extends Error {
  abstract override readonly name: string;
  /** Whether the state machine retries this error with backoff. */
  abstract readonly retryable: boolean;
  /** At most 300 characters; never contains the source token. */
  readonly detail: string;
  /** The source's HTTP status when the error comes from a response; null for network failures and our own checks. */
  readonly httpStatus: number | null;
  /** The catalog's rule id the throw site named; null: the class's own (lambdas/sync/entity-failure.ts). */
  readonly ruleId: string | null;
  /** The record the failure is about; null when it is not about one record. */
  readonly record: FailedRecord | null;

  constructor(detail: string, options?: SyncErrorOptions) {
    const cut = cutDetail(detail);
    super(cut, options?.cause === undefined ? undefined : { cause: options.cause });
    this.detail = cut;
    this.httpStatus = options?.httpStatus ?? null;
    this.ruleId = options?.rule ?? null;
    this.record = options?.record ?? null;
  }
}

/** 401 from the source: the token is wrong or revoked. Stops the whole run. */
export class SourceAuthError extends SyncError {
  override readonly name = "SourceAuthError";
  readonly retryable = false;
}

/** 404 from the source: the endpoint is not implemented (fine for optional entities). */
export class SourceNotImplementedError extends SyncError {
  override readonly name = "SourceNotImplementedError";
  readonly retryable = false;
}

/** 429 from the source; carries Retry-After in whole seconds (at least 1). */
export class SourceThrottledError extends SyncError {
  override readonly name = "SourceThrottledError";
  readonly retryable = true;
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    options?: SyncErrorOptions,
  ) {
    super(detail, { httpStatus: 429, ...options });
  }
}

/** 5xx, a timeout or a broken connection: retried with backoff. */
export class SourceTransientError extends SyncError {
  override readonly name = "SourceTransientError";
  readonly retryable = true;
  /** No try of the page reached the source (the page task saw every earlier try fail so too): the source is down. */
  readonly sourceDown: boolean;
  constructor(detail: string, options?: SyncErrorOptions & { readonly sourceDown?: boolean }) {
    super(detail, options);
    this.sourceDown = options?.sourceDown ?? false;
  }
}

/** Any other 4xx, a body that is not JSON or has no envelope, or a body over the size cap. */
export class SourceHardError extends SyncError {
  override readonly name = "SourceHardError";
  readonly retryable = false;
}

/**
 * A 3xx from the source. Never followed: a redirect could carry the token to
 * another host or past the SSRF guard. The detail names the Location so the
 * user can set base_url to the final address. Not retried.
 */
export class SourceRedirectError extends SyncError {
  override readonly name = "SourceRedirectError";
  readonly retryable = false;
}

/**
 * The errors a request to the source ends in, one a way its answer can go
 * wrong (the spec's status table, a time-out, a body that breaks the envelope):
 * what a request made ahead hands on to the page's task (fetch-ahead.ts).
 */
export const SOURCE_REQUEST_ERRORS = [SourceAuthError, SourceNotImplementedError, SourceThrottledError, SourceTransientError, SourceHardError, SourceRedirectError] as const;

/** A record of the page breaks a rule of the spec; the page writes nothing. */
export class PageValidationError extends SyncError {
  override readonly name = "PageValidationError";
  readonly retryable = false;
  constructor(
    /** The record's id, or `#<index>` when it has no usable id. */
    readonly recordId: string,
    /** Path of the field inside the record, e.g. `stages[2].kind`. */
    readonly field: string,
    /** The rule that was broken, in words. */
    readonly rule: string,
    /** The rule's catalog id (set where the entity is known); `idUsable` false when recordId is only the record's place. */
    options?: { readonly ruleId?: string; readonly idUsable?: boolean },
  ) {
    super(`record ${recordId}: field ${field}: ${rule}`, {
      ...(options?.ruleId === undefined ? {} : { rule: options.ruleId }),
      record: { id: options?.idUsable === false ? null : recordId, field },
    });
  }
}

/** A record that cannot be stored within one DynamoDB transaction (docs/design.md, "Page transactions on DynamoDB"). */
export class RecordTooLargeError extends SyncError {
  override readonly name = "RecordTooLargeError";
  readonly retryable = false;
}

/** The source broke a paging rule: a repeated page, a backwards step, too many pages. */
export class PaginationError extends SyncError {
  override readonly name = "PaginationError";
  readonly retryable = false;
}

/**
 * A store of ours (a DynamoDB table, the KMS key) is briefly unavailable:
 * throttled, a conflicting transaction, a 5xx. Each adapter raises it at its
 * edge from lambdas/adapters/aws/aws-busy-errors.ts; the state machine retries it.
 */
export class StoreUnavailableError extends SyncError {
  override readonly name = "StoreUnavailableError";
  readonly retryable = true;
}

/** Step Functions (or the local engine) refused to start the execution, or was busy: the caller may try again (the API's 503). */
export class SyncQueueUnavailableError extends SyncError {
  override readonly name = "SyncQueueUnavailableError";
  readonly retryable = true;
}

/** The run's connection no longer exists (deleted while the run was under way): the run stops. */
export class ConnectionNotFoundError extends SyncError {
  override readonly name = "ConnectionNotFoundError";
  readonly retryable = false;
}

/**
 * A token ciphertext that does not decrypt under this key and context: altered,
 * or copied from another connection or workspace. Thrown by every TokenCipher
 * (KMS in AWS, AES-256-GCM locally). The message never holds the plaintext, the
 * key or the ciphertext. Not retried: decrypting again gives the same answer.
 */
export class TokenDecryptionError extends SyncError {
  override readonly name = "TokenDecryptionError";
  readonly retryable = false;
}

/**
 * The run no longer holds its connection's lock: another run took it over
 * (this one was judged dead). The page wrote nothing; the execution ends
 * without touching the run summary, which the run that took over has closed.
 */
export class RunSupersededError extends SyncError {
  override readonly name = "RunSupersededError";
  readonly retryable = false;
}

/**
 * The connection's sync_since changed while this run was under way and its
 * watermarks were reset: the page wrote nothing, so the reset holds, and the
 * next run reads every entity from the new date.
 */
export class SyncSinceChangedError extends SyncError {
  override readonly name = "SyncSinceChangedError";
  readonly retryable = false;
}

/**
 * Every rate-limit slot this request took went stale before it could be sent
 * (the process is starved of CPU): retried by the state machine like a store error.
 */
export class RateLimitSlotsStaleError extends SyncError {
  override readonly name = "RateLimitSlotsStaleError";
  readonly retryable = true;
}

/**
 * An audit's page found a record newer in the store than when it read it (a
 * write between the audit's read and its commit): the page wrote nothing;
 * retried by the state machine, which reads and compares again.
 */
export class StoredVersionNewerError extends SyncError {
  override readonly name = "StoredVersionNewerError";
  readonly retryable = true;
}

/** A listRecords cursor that the store did not issue: the caller's mistake (the API answers 422), not a sync failure. */
export class InvalidCursorError extends Error {
  override readonly name = "InvalidCursorError";
}

/**
 * A change-feed cursor older than the feed keeps (CHANGE_RETENTION_DAYS): the
 * commits after it may be gone, so the caller must re-read the records route
 * and start the feed again without a cursor (the API answers 410).
 */
export class ChangesExpiredError extends Error {
  override readonly name = "ChangesExpiredError";
}
