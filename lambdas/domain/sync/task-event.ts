import * as v from "valibot";
import { SyncError } from "../core/errors";

/**
 * A Task state's event that is not the shape its handler takes (a hand-edited
 * execution input, a definition change that dropped a field). Not retried by
 * any Retry of the state machine: retrying the same event cannot help.
 */
export class InvalidTaskEventError extends SyncError {
  override readonly name = "InvalidTaskEventError";
  readonly retryable = false;
}

/** Parses a Task state's event; the first broken rule becomes InvalidTaskEventError naming the task and the field. */
export function parseTaskEvent<S extends v.GenericSchema>(task: string, schema: S, event: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, event, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const field = issue.path?.map((item) => String(item.key)).join(".") || "(event)";
  throw new InvalidTaskEventError(`${task} event: ${field}: ${issue.message}`);
}
