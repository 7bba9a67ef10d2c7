import { cutDetail } from "../core/errors";
import type { CaughtError } from "./sync-state";

/**
 * The human detail of an error caught by the state machine. Lambda puts a
 * JSON envelope ({errorType, errorMessage, trace}) in Cause; a Pass state puts
 * the plain detail. Both come out as the error's message, at most 300 characters.
 */
export function caughtErrorDetail(error: CaughtError): string {
  const cause = error.Cause ?? "";
  try {
    const parsed: unknown = JSON.parse(cause);
    if (typeof parsed === "object" && parsed !== null && "errorMessage" in parsed) {
      const message = (parsed as { errorMessage: unknown }).errorMessage;
      if (typeof message === "string") return cutDetail(`${error.Error}: ${message}`);
    }
  } catch {
    // Not an envelope: the cause is the detail itself.
  }
  return cutDetail(cause === "" ? error.Error : `${error.Error}: ${cause}`);
}
