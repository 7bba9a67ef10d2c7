import { awsManagerRefreshDeps, observed } from "../aws-composition";
import { makeManagerRefreshHandler } from "../../../handlers/analytics/manager-refresh-handler";

/** Lambda entry of the per-manager aggregates' refresh, invoked asynchronously by FinishRun (docs/analytics-api.md). */
export const handler = observed(makeManagerRefreshHandler(awsManagerRefreshDeps()));
