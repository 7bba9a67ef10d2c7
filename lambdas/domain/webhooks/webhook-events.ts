import * as v from "valibot";
import { SUMMARY_ENTITIES } from "../core/entities";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { RunReferenceSchema } from "../core/run-reference";
import {
  AuditFinishedSchema,
  ConnectionStaleSchema,
  DETAIL_TYPE,
  SyncRunFinishedSchema,
  type ServiceEvent,
} from "../core/service-events";

/** The event types an endpoint subscribes to, as the owner names them. */
export const WEBHOOK_EVENT_TYPES = ["run.finished", "audit.finished", "connection.stale", "changes.committed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * What a run or an audit committed, in counts only: never a record, never a token. Sent after a sync run that wrote
 * records (per entity) or an audit that healed some (entities empty: an audit reports its heals by cause), with
 * the change feed's cursors around its commits (docs/webhooks.md): `cursor_from` reads them, `cursor_to` what
 * came after them; both null when the feed keeps none of them.
 */
export const ChangesCommittedSchema = v.strictObject({
  ...RunReferenceSchema.entries,
  cause: v.picklist(["sync", "audit"]),
  committed_at: IsoTimeSchema,
  records: count,
  entities: v.array(v.strictObject({ entity: v.picklist(SUMMARY_ENTITIES), records: count })),
  cursor_from: v.nullable(v.string()),
  cursor_to: v.nullable(v.string()),
});

/** The change feed's cursors around one run's commits (ChangeStore.runRange). */
export type CursorRange = { readonly from: string; readonly to: string } | null;
export type ChangesCommitted = v.InferOutput<typeof ChangesCommittedSchema>;

/** The body of every delivery: the event's id (the same on every attempt), its type, when it happened, and its data. */
export const WebhookPayloadSchema = v.variant("type", [
  v.strictObject({ id: v.string(), type: v.literal("run.finished"), created_at: IsoTimeSchema, data: SyncRunFinishedSchema }),
  v.strictObject({ id: v.string(), type: v.literal("audit.finished"), created_at: IsoTimeSchema, data: AuditFinishedSchema }),
  v.strictObject({ id: v.string(), type: v.literal("connection.stale"), created_at: IsoTimeSchema, data: ConnectionStaleSchema }),
  v.strictObject({ id: v.string(), type: v.literal("changes.committed"), created_at: IsoTimeSchema, data: ChangesCommittedSchema }),
]);
export type WebhookPayload = v.InferOutput<typeof WebhookPayloadSchema>;

/** The run (or audit) whose commits "changes committed" would report, or null for an event that has none. */
export function committingRun(event: ServiceEvent): { readonly connectionId: string; readonly runId: string } | null {
  if (event.detail_type === DETAIL_TYPE.syncRunFinished) return { connectionId: event.detail.connection_id, runId: event.detail.run_id };
  if (event.detail_type === DETAIL_TYPE.auditFinished) return { connectionId: event.detail.connection_id, runId: event.detail.audit_id };
  return null;
}

/**
 * The webhook events one service event makes: its own, and "changes committed" when it wrote anything. Every
 * payload is parsed by its strict schema, so a field that is not in it (a token, a record) never leaves.
 */
export function webhookEventsOf(event: ServiceEvent, range: CursorRange = null): WebhookPayload[] {
  const cursors = { cursor_from: range?.from ?? null, cursor_to: range?.to ?? null };
  const payloads: unknown[] = [];
  switch (event.detail_type) {
    case DETAIL_TYPE.syncRunFinished: {
      const { detail } = event;
      payloads.push({ id: detail.event_id, type: "run.finished", created_at: detail.finished_at, data: detail });
      const entities = detail.entities.filter((row) => row.records > 0).map(({ entity, records }) => ({ entity, records }));
      const records = entities.reduce((sum, row) => sum + row.records, 0);
      if (records > 0) {
        payloads.push({
          id: `${detail.event_id}:changes`,
          type: "changes.committed",
          created_at: detail.finished_at,
          data: { business_account_id: detail.business_account_id, connection_id: detail.connection_id, run_id: detail.run_id, cause: "sync", committed_at: detail.finished_at, records, entities, ...cursors },
        });
      }
      break;
    }
    case DETAIL_TYPE.auditFinished: {
      const { detail } = event;
      payloads.push({ id: detail.event_id, type: "audit.finished", created_at: detail.finished_at, data: detail });
      const records = detail.healed.missed + detail.healed.stale + detail.healed.changed_without_advancing;
      if (records > 0) {
        payloads.push({
          id: `${detail.event_id}:changes`,
          type: "changes.committed",
          created_at: detail.finished_at,
          data: { business_account_id: detail.business_account_id, connection_id: detail.connection_id, run_id: detail.audit_id, cause: "audit", committed_at: detail.finished_at, records, entities: [], ...cursors },
        });
      }
      break;
    }
    case DETAIL_TYPE.connectionStale:
      payloads.push({ id: event.detail.event_id, type: "connection.stale", created_at: event.detail.detected_at, data: event.detail });
      break;
  }
  return payloads.map((payload) => v.parse(WebhookPayloadSchema, payload));
}
