import type { OnboardingDeps } from "../onboarding/onboarding-deps";
import type { ManagerStore } from "./manager-store";
import type { WebhookDeps } from "../webhooks/webhook-operations";

/** What the analytics routes need beyond the onboarding API's ports (docs/analytics-api.md). */
export interface AnalyticsDeps {
  /** The per-manager aggregates, the owner's links of CRM users to members, and the members seen. */
  readonly managers: ManagerStore;
}

/** Every port the HTTP API's routes use: the onboarding API's, the analytics' and the webhooks'. The composition roots fill it. */
export type ApiDeps = OnboardingDeps & AnalyticsDeps & WebhookDeps;
