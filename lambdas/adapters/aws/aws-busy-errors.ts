import { StoreUnavailableError } from "../../domain/core/errors";

/**
 * The one list of AWS errors that mean "busy, try again" (throttled, a
 * conflicting transaction, a 5xx of the service), for every adapter of ours
 * (DynamoDB, KMS, Step Functions): each turns them into its own typed error at
 * its edge (`atEdge`), so nothing past an adapter sees an AWS SDK exception
 * name and no one else decides whether one is worth retrying.
 */
export const BUSY_AWS_ERROR_NAMES: ReadonlySet<string> = new Set([
  // DynamoDB
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "ThrottlingException",
  "TransactionConflictException",
  "TransactionInProgressException",
  "InternalServerError",
  "ServiceUnavailable",
  // KMS: "The request can be retried" (https://docs.aws.amazon.com/kms/latest/APIReference/CommonErrors.html)
  "KMSInternalException",
  // Step Functions and other services' 503
  "ServiceUnavailableException",
]);

/**
 * Cancellation reasons of a TransactionCanceledException that mean busy. A
 * cancellation is busy only when every reason is one of these and one is not
 * None: a failed condition (ConditionalCheckFailed: a lock held, a run gone),
 * ValidationError or ItemCollectionSizeLimitExceeded is an answer, and
 * retrying it gives the same answer (reason codes:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors).
 */
const BUSY_CANCELLATION_CODES: ReadonlySet<string> = new Set([
  "None",
  "TransactionConflict",
  "ThrottlingError",
  "ProvisionedThroughputExceeded",
  "RequestLimitExceeded",
]);

/** Whether an error an AWS SDK client threw means "busy, try again". */
export function isBusyAwsError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const aws = error as { name?: unknown; $retryable?: unknown; $fault?: unknown; CancellationReasons?: ReadonlyArray<{ Code?: string }> };
  if (aws.name === "TransactionCanceledException") {
    const codes = (aws.CancellationReasons ?? []).map((reason) => reason.Code ?? "None");
    return codes.some((code) => code !== "None") && codes.every((code) => BUSY_CANCELLATION_CODES.has(code));
  }
  // The SDK marks throttling and transient errors $retryable, and every 5xx $fault "server".
  return BUSY_AWS_ERROR_NAMES.has(String(aws.name)) || aws.$retryable !== undefined || aws.$fault === "server";
}

/** "Name: message" of an AWS error, for the typed error's detail. */
export function awsErrorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

type Sender = { send(...args: never[]): Promise<unknown> };

/**
 * The client as an adapter holds it: its `send`, with a busy AWS error turned
 * into `busy(error)` and every other error passed through unchanged (the
 * adapter handles the ones it expects, e.g. a failed condition). The client's
 * `send` is looked up on each call, so a test that replaces it still reaches it.
 */
export function atEdge<C extends Sender>(client: C, busy: (error: unknown) => Error): Pick<C, "send"> {
  const send = async (...args: unknown[]): Promise<unknown> => {
    try {
      return await (client.send as (...a: unknown[]) => Promise<unknown>).apply(client, args);
    } catch (error) {
      throw isBusyAwsError(error) ? busy(error) : error;
    }
  };
  return { send } as unknown as Pick<C, "send">;
}

/** A DynamoDB or KMS client at a store's edge: busy becomes StoreUnavailableError, the one name the state machine retries for them. */
export function atStoreEdge<C extends Sender>(client: C): Pick<C, "send"> {
  return atEdge(client, (error) => new StoreUnavailableError(awsErrorText(error), { cause: error }));
}
