import { awsOnboardingDeps, observed } from "../aws/aws-composition";
import { makeApiHandler } from "../onboarding/http/api-handler";

/** Lambda entry of every onboarding API route (HTTP API, payload 2.0, JWT authorizer). */
export const handler = observed(makeApiHandler(awsOnboardingDeps()));
