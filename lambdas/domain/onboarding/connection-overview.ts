import * as v from "valibot";
import { SUMMARY_ENTITIES } from "../core/entities";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { RunStatusSchema, type RunSummary } from "../core/run-summary";
import { ConnectionResourceSchema } from "./connection-resource";
import { REQUIRED_SUMMARY_ENTITIES } from "../sync/finish-run";

/*
 * GET /connections answers an overview, not only the connections: each one's
 * last run and open findings beside its health facts (freshness, stale), so a
 * dashboard needs one request, not one more per connection.
 */

/**
 * Sync runs read per connection (one Query): the newest, and among them the two newest successful ones, whose findings
 * are the open ones and the ones they are new against. A failed run's findings say only what its pages saw before it stopped.
 */
export const OVERVIEW_RUNS = 5;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** The newest sync run, in brief. */
export const LastRunSchema = v.object({
  id: v.string(),
  status: RunStatusSchema,
  started_at: IsoTimeSchema,
  finished_at: v.nullable(IsoTimeSchema),
  /** Records written so far, over every entity. */
  records: count,
  /** Entities that failed, in sync order. */
  failed_entities: v.array(v.picklist(SUMMARY_ENTITIES)),
});
export type LastRun = v.InferOutput<typeof LastRunSchema>;

/** The data-quality findings of the newest successful run: each (entity, rule) its records hit counts once. */
export const OpenFindingsSchema = v.object({
  run_id: v.string(),
  /** (entity, rule) pairs with records in that run. */
  findings: count,
  /** Of them, rules of severity error. */
  errors: count,
  /** Records that hit them (a record hitting two rules counts twice). */
  records: count,
  /** Pairs the successful run before it did not have (all of them when none is among the runs read). */
  new: count,
});
export type OpenFindings = v.InferOutput<typeof OpenFindingsSchema>;

/**
 * Whether the connection is healthy: its data is not stale and no required
 * entity failed in its last finished run (a run still going, or one the owner
 * cancelled, says nothing about the source: the run before it decides).
 */
export const ConnectionHealthSchema = v.object({
  /** Not stale, and no required entity failed in the last finished run. */
  healthy: v.boolean(),
  /** The newest finished, not cancelled, sync run among the newest OVERVIEW_RUNS; null when there is none. */
  run_id: v.nullable(v.string()),
  /** The required entities (and stages with their pipelines) that failed in that run, in sync order: what keeps the connection unhealthy. */
  failed_entities: v.array(v.picklist(SUMMARY_ENTITIES)),
});
export type ConnectionHealth = v.InferOutput<typeof ConnectionHealthSchema>;

/** One connection of the list: the resource, its health, its last run and its open findings. */
export const ConnectionOverviewSchema = v.strictObject({
  ...ConnectionResourceSchema.entries,
  health: v.pipe(ConnectionHealthSchema, v.description(`Healthy: not stale, and no required entity failed in the last finished sync run (cancelled ones aside) among the newest ${OVERVIEW_RUNS}; otherwise the entities that failed are named`)),
  last_run: v.pipe(v.nullable(LastRunSchema), v.description("The newest sync run (running or finished); null before the first")),
  open_findings: v.pipe(
    v.nullable(OpenFindingsSchema),
    v.description(`Findings of the newest successful run among the newest ${OVERVIEW_RUNS} (GET .../quality has them per rule); null when none of them succeeded`),
  ),
});
export type ConnectionOverview = v.InferOutput<typeof ConnectionOverviewSchema>;

/** GET /connections: this workspace's connections, each with its overview. */
export const ConnectionListSchema = v.object({ data: v.array(ConnectionOverviewSchema) });

/** Pure: the health from the connection's newest sync runs (newest first) and whether its data is stale. */
export function healthOf(runs: readonly RunSummary[], stale: boolean): ConnectionHealth {
  const finished = runs.find((run) => run.status === "succeeded" || run.status === "failed");
  const failed = (finished?.entities ?? []).filter((row) => row.status === "failed" && REQUIRED_SUMMARY_ENTITIES.has(row.entity)).map((row) => row.entity);
  return { healthy: !stale && failed.length === 0, run_id: finished?.id ?? null, failed_entities: failed };
}

/** Pure: the last run and open findings from the connection's newest sync runs (newest first). */
export function overviewOf(runs: readonly RunSummary[]): Pick<ConnectionOverview, "last_run" | "open_findings"> {
  const latest = runs[0];
  const [succeeded, before] = runs.filter((run) => run.status === "succeeded");
  const pairs = (run: RunSummary) => run.entities.flatMap((row) => row.findings.map((finding) => ({ key: `${row.entity} ${finding.rule}`, finding })));
  const known = new Set(before === undefined ? [] : pairs(before).map((pair) => pair.key));
  const open = succeeded === undefined ? [] : pairs(succeeded);
  return {
    last_run:
      latest === undefined
        ? null
        : {
            id: latest.id,
            status: latest.status,
            started_at: latest.started_at,
            finished_at: latest.finished_at,
            records: latest.entities.reduce((sum, row) => sum + row.records, 0),
            failed_entities: latest.entities.filter((row) => row.status === "failed").map((row) => row.entity),
          },
    open_findings:
      succeeded === undefined
        ? null
        : {
            run_id: succeeded.id,
            findings: open.length,
            errors: open.filter((pair) => pair.finding.severity === "error").length,
            records: open.reduce((sum, pair) => sum + pair.finding.count, 0),
            new: open.filter((pair) => !known.has(pair.key)).length,
          },
  };
}
