/**
 * us-east-1 list prices used by `npm run cost`, each named once with its
 * source (free tiers ignored). Checked 2026-11-23; change them here only.
 */

/** Step Functions Standard: $0.025 per 1,000 state transitions. https://aws.amazon.com/step-functions/pricing/ */
export const STANDARD_TRANSITION_USD = 0.025 / 1_000;
/** Step Functions Express: $1.00 per million requests (executions started). https://aws.amazon.com/step-functions/pricing/ */
export const EXPRESS_REQUEST_USD = 1.0 / 1_000_000;
/** Step Functions Express duration: $0.06 per GB-hour for the first 1,000 GB-hours a month (cheaper above). Same page. */
export const EXPRESS_GB_SECOND_USD = 0.06 / 3_600;
/**
 * Express memory is billed in 64 MB chunks: 50 MB + the definition + the
 * execution data. Both sync definitions are under 10 KB and the state a few
 * KB, so one chunk. Same page, "Workflow memory utilized".
 */
export const EXPRESS_BILLED_GB = 64 / 1_024;
/** Express duration is rounded up to the nearest 100 ms. Same page. */
export const EXPRESS_DURATION_STEP_SECONDS = 0.1;
/** Lambda: $0.20 per million requests. https://aws.amazon.com/lambda/pricing/ */
export const LAMBDA_REQUEST_USD = 0.2 / 1_000_000;
/** Lambda on arm64: $0.0000133334 per GB-second (first 7.5 billion GB-s a month). Same page. */
export const LAMBDA_ARM_GB_SECOND_USD = 0.0000133334;
/** DynamoDB on-demand: $0.625 per million write request units. https://aws.amazon.com/dynamodb/pricing/on-demand/ */
export const DYNAMODB_WRU_USD = 0.625 / 1_000_000;
/** DynamoDB on-demand: $0.125 per million read request units. Same page. */
export const DYNAMODB_RRU_USD = 0.125 / 1_000_000;
/** KMS: $0.03 per 10,000 requests. https://aws.amazon.com/kms/pricing/ */
export const KMS_REQUEST_USD = 0.03 / 10_000;
