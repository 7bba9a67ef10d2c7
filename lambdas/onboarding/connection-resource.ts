import * as v from "valibot";
import { ConnectionSchema, type StoredConnection } from "../core/connection";
import { AuditScheduleSchema, DEFAULT_AUDIT_SCHEDULE } from "../core/audit-schedule";

/** The Connection as the API returns it: every field but the token, plus the schedule as the owner sees it. Nothing else. */
export const ConnectionResourceSchema = v.strictObject({
  ...ConnectionSchema.entries,
  paused: v.pipe(v.boolean(), v.description("The schedule is paused: the dispatcher skips it; a manual sync still runs")),
  /*
   * Neither EventBridge nor the local timer exposes the exact time of the
   * next run, so the API gives the interval it is within.
   */
  schedule: v.pipe(
    v.nullable(v.string()),
    v.description("The dispatcher's interval (1h, 15m, off); the next scheduled run is within one interval. Null when not configured for the API"),
  ),
  audit_schedule: AuditScheduleSchema,
});
export type ConnectionResource = v.InferOutput<typeof ConnectionResourceSchema>;

/** GET /connections: this workspace's connections. */
export const ConnectionListSchema = v.object({ data: v.array(ConnectionResourceSchema) });

export function toConnectionResource(stored: StoredConnection, schedule?: string): ConnectionResource {
  return {
    id: stored.id,
    business_account_id: stored.business_account_id,
    crm_type: stored.crm_type,
    base_url: stored.base_url,
    rate_limit: stored.rate_limit,
    sync_since: stored.sync_since,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    paused: stored.paused === true,
    schedule: schedule ?? null,
    audit_schedule: stored.audit_schedule ?? DEFAULT_AUDIT_SCHEDULE,
  };
}
