import { awsOnboardingDeps, observed } from "../aws-composition";
import { makeApiHandler } from "../../../handlers/http/api-handler";

/** Lambda entry of every onboarding API route (HTTP API, payload 2.0, JWT authorizer). */
export const handler = observed(makeApiHandler(awsOnboardingDeps()));
