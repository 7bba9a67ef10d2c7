import type { HandlerError } from "./protocol";

/** Context passed to a handler besides its input. */
export interface TaskContext {
  /** The execution's reference, as returned by start() (also `$$.Execution.Id`). */
  readonly executionId: string;
  readonly stateName: string;
}

/**
 * A Task state's local function. Its input and output are JSON (the output is
 * JSON round-tripped, `undefined` becoming null, as a Lambda's would be). A
 * thrown error reaches the definition as a Lambda function error: `Error` is
 * its `name`, `Cause` is `{"errorType","errorMessage","trace"}` JSON.
 */
export type TaskHandler = (input: unknown, context: TaskContext) => Promise<unknown>;

/** Runs one Task call of the engine: the handler's JSON output, or its error reduced to what Lambda reports. */
export async function callTask(
  handler: TaskHandler | undefined,
  input: unknown,
  context: TaskContext,
): Promise<{ readonly ok: true; readonly output: unknown } | { readonly ok: false; readonly error: HandlerError }> {
  try {
    if (!handler) throw namedError("States.TaskFailed", `No local handler for Task state '${context.stateName}'`);
    const output = await handler(input, context);
    return { ok: true, output: JSON.parse(JSON.stringify(output ?? null)) };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

export function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function describeError(error: unknown): HandlerError {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (typeof error === "string") return { name: "Error", message: error };
  let message: string;
  try {
    message = JSON.stringify(error) ?? String(error);
  } catch {
    message = String(error);
  }
  return { name: "Error", message };
}
