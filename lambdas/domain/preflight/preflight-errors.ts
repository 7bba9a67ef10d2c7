/**
 * The kit could not do its job (exit status 2): the message is one line that
 * says what to do. Never holds the token.
 */
export class PreflightCannotRunError extends Error {
  override readonly name = "PreflightCannotRunError";
}
