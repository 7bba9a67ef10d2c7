import * as v from "valibot";
import { SUMMARY_ENTITIES, SYNC_ENTITIES } from "./entities";
import { IsoTimeSchema } from "./iso-time-schema";
import { EntityRunStatusSchema, RunStatusSchema } from "./run-summary";
import { RunReferenceSchema } from "./run-reference";

/*
 * The events the service sends out (an owner or ops routes them to email or
 * chat): in AWS, EventBridge events on the default bus with source
 * EVENT_SOURCE and these detail types; locally, log lines; both, the
 * workspace's notifications (GET /api/v1/crm/custom/notifications). One
 * schema per detail: the publisher parses every event with it before it
 * leaves, and docs/observability.md documents them from here. No event
 * carries the source token, or anything read from the source beyond ids,
 * counts and times.
 */

/** EventBridge's `source` of every event (not `aws.*`, which AWS reserves). */
export const EVENT_SOURCE = "crm.custom-integration";

export const DETAIL_TYPE = {
  syncRunFinished: "Sync Run Finished",
  auditFinished: "Audit Finished",
  connectionStale: "Connection Stale",
} as const;
export type DetailType = (typeof DETAIL_TYPE)[keyof typeof DETAIL_TYPE];

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Who an event is about: every detail starts with these. */
const subject = {
  /** Stable per event: a consumer may drop repeats by it (delivery is at least once). */
  event_id: v.string(),
  business_account_id: v.string(),
  connection_id: v.string(),
};

/** A sync run ended (succeeded or failed), with its rows. */
export const SyncRunFinishedSchema = v.strictObject({
  event_id: subject.event_id,
  ...RunReferenceSchema.entries,
  status: RunStatusSchema,
  started_at: IsoTimeSchema,
  finished_at: IsoTimeSchema,
  unresolved_won_lost: count,
  entities: v.array(
    v.strictObject({
      entity: v.picklist(SUMMARY_ENTITIES),
      status: EntityRunStatusSchema,
      pages: count,
      records: count,
    }),
  ),
});
export type SyncRunFinished = v.InferOutput<typeof SyncRunFinishedSchema>;

/**
 * An audit ended: what it healed, by cause (the alarm), what changed after
 * the last sync (not a miss: the next sync brings it), and what the source
 * no longer returns.
 */
export const AuditFinishedSchema = v.strictObject({
  ...subject,
  audit_id: v.string(),
  status: RunStatusSchema,
  started_at: IsoTimeSchema,
  finished_at: IsoTimeSchema,
  healed: v.strictObject({ missed: count, stale: count, changed_without_advancing: count }),
  ahead_of_watermark: count,
  absent_in_source: count,
});
export type AuditFinished = v.InferOutput<typeof AuditFinishedSchema>;

/** A required entity's data got older than the connection's freshness_hours. Sent once per stale data_as_of. */
export const ConnectionStaleSchema = v.strictObject({
  ...subject,
  freshness_hours: v.pipe(v.number(), v.integer(), v.minValue(1)),
  detected_at: IsoTimeSchema,
  stale_entities: v.array(v.strictObject({ entity: v.picklist(SYNC_ENTITIES), data_as_of: v.nullable(IsoTimeSchema) })),
});
export type ConnectionStale = v.InferOutput<typeof ConnectionStaleSchema>;

export const ServiceEventSchema = v.variant("detail_type", [
  v.strictObject({ detail_type: v.literal(DETAIL_TYPE.syncRunFinished), detail: SyncRunFinishedSchema }),
  v.strictObject({ detail_type: v.literal(DETAIL_TYPE.auditFinished), detail: AuditFinishedSchema }),
  v.strictObject({ detail_type: v.literal(DETAIL_TYPE.connectionStale), detail: ConnectionStaleSchema }),
]);
/** One event out: its detail type and its detail. */
export type ServiceEvent = v.InferOutput<typeof ServiceEventSchema>;

/** A notification as GET /notifications lists it: the event and when it was sent. */
export const NotificationSchema = v.object({
  id: v.string(),
  detail_type: v.picklist(Object.values(DETAIL_TYPE)),
  connection_id: v.string(),
  at: IsoTimeSchema,
  detail: v.record(v.string(), v.unknown()),
});
export type Notification = v.InferOutput<typeof NotificationSchema>;

/** GET /api/v1/crm/custom/notifications: the workspace's latest, newest first. */
export const NotificationListSchema = v.object({ data: v.array(NotificationSchema) });

/** Notifications kept per workspace for the list (older ones expire with the table's TTL). */
export const NOTIFICATIONS_LISTED = 100;
