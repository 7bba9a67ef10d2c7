/**
 * Errors of the onboarding API. Each has a stable `name`; http/error-status.ts
 * maps these and the sync's to HTTP statuses by class, in one place.
 */
export abstract class OnboardingError extends Error {
  abstract override readonly name: string;
  /** Stable, machine-readable code in the error body. */
  abstract readonly code: string;
}

/** The body is not JSON, or not a JSON object. */
export class MalformedBodyError extends OnboardingError {
  override readonly name = "MalformedBodyError";
  readonly code = "malformed_body";
}

/** A broken rule of one field. */
export interface FieldProblem {
  readonly field: string;
  readonly rule: string;
}

/** A field breaks a rule (`field`, `rule`: the first); `problems`: every field that breaks one, so a form can show them all at once. Nothing was created or changed. */
export class InvalidFieldError extends OnboardingError {
  override readonly name = "InvalidFieldError";
  readonly code = "invalid_field";
  readonly problems: readonly FieldProblem[];
  constructor(
    readonly field: string,
    readonly rule: string,
    others: readonly FieldProblem[] = [],
  ) {
    super(`${field}: ${rule}`);
    this.problems = [{ field, rule }, ...others.filter((other) => other.field !== field)];
  }
}

/** No valid owner session (missing, expired, forged). In AWS the JWT authorizer answers this before the handler runs. */
export class UnauthenticatedError extends OnboardingError {
  override readonly name = "UnauthenticatedError";
  readonly code = "unauthenticated";
}

/** Only the workspace owner may use the onboarding API. */
export class NotOwnerError extends OnboardingError {
  override readonly name = "NotOwnerError";
  readonly code = "forbidden";
  constructor() {
    super("only the workspace owner may manage CRM connections");
  }
}

/** Unknown id, or another workspace's: the same answer for both. */
export class NotFoundError extends OnboardingError {
  override readonly name = "NotFoundError";
  readonly code = "not_found";
}

/** The conformance run could not be handed to its worker (Lambda busy or unavailable): try again shortly. */
export class PreflightUnavailableError extends OnboardingError {
  override readonly name = "PreflightUnavailableError";
  readonly code = "unavailable";
}

/**
 * The service's own store or rate limiter stayed busy through the test call's
 * retries, so no request reached the source: the answer says nothing about
 * the customer's CRM (a 503, never `reachable: false`).
 */
export class ServiceBusyError extends OnboardingError {
  override readonly name = "ServiceBusyError";
  readonly code = "unavailable";
}

/** The request is valid but the resource is not in a state that allows it (e.g. cancelling a finished run). */
export class ConflictError extends OnboardingError {
  override readonly name = "ConflictError";
  readonly code = "conflict";
}
