import { ChangesExpiredError, errorNameOf, InvalidCursorError, StoreUnavailableError, SyncQueueUnavailableError, type ErrorClass } from "../../domain/core/errors";
import {
  ConflictError,
  InvalidFieldError,
  MalformedBodyError,
  NotFoundError,
  NotOwnerError,
  PreflightUnavailableError,
  ServiceBusyError,
  UnauthenticatedError,
} from "../../domain/onboarding/onboarding-errors";
import { LinkChangedError, NotLinkedError } from "../../domain/analytics/analytics-errors";

/**
 * Error class -> HTTP status, in one place, matched by class (instanceof).
 * Busy AWS services never reach here as SDK exceptions: each adapter turns
 * them into StoreUnavailableError or SyncQueueUnavailableError at its edge
 * (lambdas/adapters/aws/aws-busy-errors.ts). Anything not listed is a 500 with no
 * detail leaked.
 */
export const ERROR_STATUSES: ReadonlyArray<readonly [ErrorClass, number]> = [
  [MalformedBodyError, 400],
  [InvalidFieldError, 422],
  [InvalidCursorError, 422],
  [UnauthenticatedError, 401],
  [NotOwnerError, 403],
  [NotLinkedError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [LinkChangedError, 409],
  [ChangesExpiredError, 410],
  [SyncQueueUnavailableError, 503],
  [PreflightUnavailableError, 503],
  [ServiceBusyError, 503],
  [StoreUnavailableError, 503],
];

/** Seconds a 503 asks the client to wait (`Retry-After`): past a throttled second and the SDK's own backoff. */
export const RETRY_AFTER_SECONDS = 5;

export function statusOf(error: unknown): number {
  return ERROR_STATUSES.find(([errorClass]) => error instanceof errorClass)?.[1] ?? 500;
}

/** The table by the errors' stable `name`, for the OpenAPI document (`x-error-statuses`). */
export function errorStatusesByName(): Readonly<Record<string, number>> {
  return Object.fromEntries(ERROR_STATUSES.map(([errorClass, status]) => [errorNameOf(errorClass), status]));
}
