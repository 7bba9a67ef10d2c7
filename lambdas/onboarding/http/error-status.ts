/**
 * Error -> HTTP status, in one place. Names are the stable `name` of the
 * typed errors (lambdas/onboarding/onboarding-errors.ts, lambdas/core/errors.ts)
 * and of the AWS SDK's exceptions that mean "busy, try again"; anything
 * unnamed here is a 500 with no detail leaked. Matched by name, not class, so
 * the domain imports no AWS SDK (test/architecture/domain-imports.unit.test.ts).
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  MalformedBodyError: 400,
  InvalidFieldError: 422,
  InvalidCursorError: 422,
  UnauthenticatedError: 401,
  NotOwnerError: 403,
  NotFoundError: 404,
  ConflictError: 409,
  SyncQueueUnavailableError: 503,
  PreflightUnavailableError: 503,
  StoreUnavailableError: 503,
  // DynamoDB throttled or conflicted after the SDK's own retries: the client may retry (docs/onboarding-api.md).
  ProvisionedThroughputExceededException: 503,
  ThrottlingException: 503,
  RequestLimitExceeded: 503,
  TransactionConflictException: 503,
  TransactionInProgressException: 503,
  InternalServerError: 503,
  ServiceUnavailable: 503,
  ServiceUnavailableException: 503,
};

/** Seconds a 503 asks the client to wait (`Retry-After`): past a throttled second and the SDK's own backoff. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * A cancelled transaction is "busy" only when every reason is: a failed
 * condition (a lock held, a run gone) is the caller's to handle, never a 503.
 */
const BUSY_CANCELLATION_CODES = new Set(["None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"]);

export function statusOf(error: unknown): number {
  if (!(error instanceof Error)) return 500;
  const named = ERROR_STATUS[error.name];
  if (named !== undefined) return named;
  const aws = error as { $fault?: unknown; CancellationReasons?: ReadonlyArray<{ Code?: string }> };
  if (error.name === "TransactionCanceledException") {
    const codes = (aws.CancellationReasons ?? []).map((reason) => reason.Code ?? "None");
    return codes.some((code) => code !== "None") && codes.every((code) => BUSY_CANCELLATION_CODES.has(code)) ? 503 : 500;
  }
  // Any other 5xx of an AWS service (the SDK marks it $fault: "server"): theirs, not the client's.
  return aws.$fault === "server" ? 503 : 500;
}
