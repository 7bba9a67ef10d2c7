import * as v from "valibot";
import { ConnectionNameSchema, ConnectionSchema, type StoredConnection } from "../core/connection";
import { FreshnessHoursSchema, FreshnessSchema, freshnessHours, staleEntities, type Freshness } from "../core/freshness";
import { REQUIRED_ENTITIES } from "../source-contract/entity-catalog";
import { scheduleIntervalMs } from "../sync/schedule-interval";
import type { OnboardingDeps } from "./onboarding-deps";
import { AuditScheduleSchema, DEFAULT_AUDIT_SCHEDULE } from "../core/audit-schedule";
import { DEFAULT_IDLE_DAYS, IdleDaysSchema } from "../core/idle-days";
import { StageEventTypeSchema } from "../core/stage-event-type";

/** The Connection as the API returns it: every field but the token, plus the schedule as the owner sees it. Nothing else. */
export const ConnectionResourceSchema = v.strictObject({
  ...ConnectionSchema.entries,
  name: v.pipe(v.nullable(ConnectionNameSchema), v.description("The owner's name for the connection (1 to 100 characters), shown in place of base_url; null when none was given")),
  paused: v.pipe(v.boolean(), v.description("The schedule is paused: the dispatcher skips it; a manual sync still runs")),
  /*
   * Neither EventBridge nor the local timer exposes the exact time of the
   * next run, so the API gives the interval it is within.
   */
  schedule: v.pipe(
    v.nullable(v.string()),
    v.description("The dispatcher's interval (1h, 15m, off); the next scheduled run is within one interval. Null when not configured for the API"),
  ),
  freshness_hours: v.pipe(
    v.nullable(FreshnessHoursSchema),
    v.description("Hours after which a required entity's data is stale: the connection's own value, else twice the schedule interval; null when neither is set (schedule off): never stale"),
  ),
  freshness: v.pipe(FreshnessSchema, v.description("Per synced entity: data_as_of, when it last finished a run with every page committed (a failed or cancelled entity keeps it), and its watermark")),
  stale: v.pipe(
    v.boolean(),
    v.description("A required entity's data is older than freshness_hours (one never synced counts from created_at)"),
  ),
  audit_schedule: AuditScheduleSchema,
  idle_days: v.pipe(IdleDaysSchema, v.description("Days without a task, call or event after which an open lead counts as idle (a coaching signal); PATCH null goes back to the default, 14")),
  stage_event_type: v.pipe(
    v.nullable(StageEventTypeSchema),
    v.description("The /events type that records stage moves, compared exactly (case included); null: any type containing \"stage\", any case. PATCH null goes back to that default"),
  ),
});
export type ConnectionResource = v.InferOutput<typeof ConnectionResourceSchema>;

/** What the resource shows beside the stored connection: the schedule, the freshness read for it, and now. */
export interface ConnectionView {
  readonly schedule?: string | undefined;
  readonly freshness: Freshness;
  readonly now: Date;
}

export function toConnectionResource(stored: StoredConnection, view: ConnectionView): ConnectionResource {
  const hours = freshnessHours(stored.freshness_hours, scheduleIntervalMs(view.schedule));
  return {
    id: stored.id,
    business_account_id: stored.business_account_id,
    crm_type: stored.crm_type,
    base_url: stored.base_url,
    name: stored.name ?? null,
    rate_limit: stored.rate_limit,
    sync_since: stored.sync_since,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    paused: stored.paused === true,
    schedule: view.schedule ?? null,
    freshness_hours: hours,
    freshness: view.freshness,
    stale: staleEntities({ freshness: view.freshness, hours, required: REQUIRED_ENTITIES, createdAt: stored.created_at, now: view.now }).length > 0,
    audit_schedule: stored.audit_schedule ?? DEFAULT_AUDIT_SCHEDULE,
    idle_days: stored.idle_days ?? DEFAULT_IDLE_DAYS,
    stage_event_type: stored.stage_event_type ?? null,
  };
}

/** The resource of a stored connection, with its freshness read now (one Query of its watermark items). */
export async function connectionResource(
  deps: Pick<OnboardingDeps, "records" | "clock" | "schedule">,
  stored: StoredConnection,
): Promise<ConnectionResource> {
  const freshness = await deps.records.getFreshness(stored.id);
  return toConnectionResource(stored, { schedule: deps.schedule, freshness, now: deps.clock.now() });
}
