import type { Notification } from "../service-events";

/** The workspace's notifications: every event the service sent about its connections. */
export interface NotificationStore {
  /**
   * Records one notification, once per id: false when that id was recorded
   * before (a retried run end, a stale connection already told), and then
   * nothing is written.
   */
  add(businessAccountId: string, notification: Notification): Promise<boolean>;
  /** The latest `limit`, newest first. */
  listLatest(businessAccountId: string, limit: number): Promise<Notification[]>;
}
