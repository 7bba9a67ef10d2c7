/**
 * The kit could not do its job (exit status 2): the message is one line that
 * says what to do. Never holds the token.
 */
export class PreflightCannotRunError extends Error {
  override readonly name = "PreflightCannotRunError";
}

/** Thrown by the service's check's fetch once its time limit is reached, so the kit stops before its next request. */
export class PreflightTimeLimitReachedError extends Error {
  override readonly name = "PreflightTimeLimitReachedError";
}
