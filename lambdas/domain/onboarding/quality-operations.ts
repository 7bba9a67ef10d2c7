import * as v from "valibot";
import { SUMMARY_ENTITIES } from "../core/entities";
import { FINDING_SAMPLE_IDS } from "../core/limits";
import { RunStatusSchema, type RunSummary } from "../core/run-summary";
import { SeveritySchema } from "../core/severity";
import { RULES_BY_ID } from "../source-contract/rules/catalog";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { RUN_LIST_LIMIT } from "./run-operations";

/** Finished runs whose counts the quality route shows, newest first. */
export const QUALITY_RUNS = 10;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** One rule an entity's records hit in the recent runs. */
export const QualityRuleSchema = v.object({
  rule: v.string(),
  severity: SeveritySchema,
  /** The spec section that states the rule. */
  spec: v.string(),
  /** What the source's developers change, from the kit's catalog. */
  fix: v.string(),
  /** Records that hit it in the last successful run (0: none did); null when no run succeeded among those read. */
  last_successful_run: v.nullable(count),
  /** Per run of `runs`, newest first: records that hit it (0 when none did). */
  counts: v.array(v.object({ run_id: v.string(), count })),
  /** Ids from the newest run that hit it (at most FINDING_SAMPLE_IDS). */
  sample_ids: v.pipe(v.array(v.string()), v.maxLength(FINDING_SAMPLE_IDS)),
  /** What the first record showed in that run. */
  detail: v.string(),
});

/** GET /connections/{id}/quality: per entity, the silent rules its records hit over the recent runs. */
export const QualitySchema = v.object({
  connection_id: v.string(),
  /** The finished runs counted, newest first (at most QUALITY_RUNS); a run under way is not counted yet. */
  runs: v.array(v.object({ id: v.string(), status: RunStatusSchema, started_at: v.string(), finished_at: v.nullable(v.string()) })),
  /** The newest successful run among the last RUN_LIST_LIMIT runs, or null. */
  last_successful_run_id: v.nullable(v.string()),
  /** Every summary entity in sync order; `rules` ordered errors first, then by the last run's count. */
  entities: v.array(v.object({ entity: v.picklist(SUMMARY_ENTITIES), rules: v.array(QualityRuleSchema) })),
});
export type Quality = v.InferOutput<typeof QualitySchema>;
type QualityRule = v.InferOutput<typeof QualityRuleSchema>;

/** Reads the connection's recent run summaries (one Query) and folds their findings by entity and rule. */
export async function getQuality(deps: OnboardingDeps, account: string, id: string): Promise<Quality> {
  await findConnection(deps, account, id);
  const listed = await deps.runs.list(id, { limit: RUN_LIST_LIMIT });
  const finished = listed.filter((run) => run.status !== "running");
  return qualityOf(id, finished.slice(0, QUALITY_RUNS), finished.find((run) => run.status === "succeeded") ?? null);
}

/** Pure: the quality view of `runs` (finished, newest first) and the last successful run. */
export function qualityOf(connectionId: string, runs: readonly RunSummary[], lastSuccessful: RunSummary | null): Quality {
  const entities = SUMMARY_ENTITIES.map((entity) => {
    const rules = new Map<string, QualityRule>();
    const findingOf = (run: RunSummary, rule: string) => run.entities.find((row) => row.entity === entity)?.findings.find((f) => f.rule === rule);
    const ruleIds = new Set([...runs, ...(lastSuccessful ? [lastSuccessful] : [])].flatMap((run) => run.entities.find((row) => row.entity === entity)?.findings.map((f) => f.rule) ?? []));
    for (const rule of ruleIds) {
      const newest = [...runs, ...(lastSuccessful ? [lastSuccessful] : [])].map((run) => findingOf(run, rule)).find((f) => f !== undefined)!;
      const info = RULES_BY_ID.get(rule);
      rules.set(rule, {
        rule,
        severity: info?.severity ?? newest.severity,
        spec: info?.spec ?? "",
        fix: info?.fix ?? "",
        last_successful_run: lastSuccessful === null ? null : (findingOf(lastSuccessful, rule)?.count ?? 0),
        counts: runs.map((run) => ({ run_id: run.id, count: findingOf(run, rule)?.count ?? 0 })),
        sample_ids: [...newest.sample_ids],
        detail: newest.detail,
      });
    }
    const rank = (rule: QualityRule) => (rule.severity === "error" ? 0 : 1);
    const sorted = [...rules.values()].sort((a, b) => rank(a) - rank(b) || (b.counts[0]?.count ?? 0) - (a.counts[0]?.count ?? 0) || (a.rule < b.rule ? -1 : 1));
    return { entity, rules: sorted };
  });
  return {
    connection_id: connectionId,
    runs: runs.map((run) => ({ id: run.id, status: run.status, started_at: run.started_at, finished_at: run.finished_at })),
    last_successful_run_id: lastSuccessful?.id ?? null,
    entities,
  };
}
