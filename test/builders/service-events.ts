import type { ServiceEvent } from "../../lambdas/domain/core/service-events";

/** A Sync Run Finished event whose leads entity committed `records` records. */
export function runFinished(options: { readonly records: number; readonly account?: string }): ServiceEvent {
  return {
    detail_type: "Sync Run Finished",
    detail: {
      event_id: "run-finished:conn-1:run-1",
      business_account_id: options.account ?? "acct-1",
      connection_id: "conn-1",
      run_id: "run-1",
      status: "succeeded",
      started_at: "2026-03-01T11:59:00.000Z",
      finished_at: "2026-03-01T12:00:00.000Z",
      unresolved_won_lost: 0,
      entities: [
        { entity: "pipelines", status: "succeeded", pages: 1, records: 0 },
        { entity: "leads", status: "succeeded", pages: 1, records: options.records },
      ],
    },
  };
}
