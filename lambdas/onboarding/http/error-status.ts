/**
 * Error name -> HTTP status, in one place. Names are the stable `name` of the
 * typed errors (lambdas/onboarding/onboarding-errors.ts, lambdas/core/errors.ts);
 * anything unnamed here is a 500 with no detail leaked.
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  MalformedBodyError: 400,
  InvalidFieldError: 422,
  InvalidCursorError: 422,
  UnauthenticatedError: 401,
  NotOwnerError: 403,
  NotFoundError: 404,
  SyncQueueUnavailableError: 503,
  StoreUnavailableError: 503,
};

export function statusOf(error: unknown): number {
  const name = error instanceof Error ? error.name : "";
  return ERROR_STATUS[name] ?? 500;
}
