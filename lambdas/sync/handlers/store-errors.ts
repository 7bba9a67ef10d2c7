import { StoreUnavailableError, SyncError } from "../../core/errors";

/**
 * AWS SDK errors that mean "try again" (throttling, a conflicting transaction,
 * a 5xx) become StoreUnavailableError, the one name the state machine retries
 * for the stores; anything else passes through unchanged.
 */
export async function withStoreErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SyncError) && isRetryableAwsError(error)) {
      throw new StoreUnavailableError(`${(error as Error).name}: ${(error as Error).message}`);
    }
    throw error;
  }
}

const RETRYABLE_NAMES = new Set([
  "ThrottlingException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "TransactionConflictException",
  "TransactionCanceledException",
  "TransactionInProgressException",
  "InternalServerError",
  "ServiceUnavailable",
  "KMSInternalException",
]);

function isRetryableAwsError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const aws = error as { name?: unknown; $retryable?: unknown; $fault?: unknown };
  return aws.$retryable !== undefined || aws.$fault === "server" || RETRYABLE_NAMES.has(String(aws.name));
}
