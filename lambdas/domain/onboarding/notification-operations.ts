import { NOTIFICATIONS_LISTED, type Notification } from "../core/service-events";
import type { OnboardingDeps } from "./onboarding-deps";

/** The workspace's latest notifications (every event the service sent about its connections), newest first. */
export async function listNotifications(deps: Pick<OnboardingDeps, "notifications">, account: string): Promise<Notification[]> {
  return deps.notifications.listLatest(account, NOTIFICATIONS_LISTED);
}
