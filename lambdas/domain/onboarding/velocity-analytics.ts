import * as v from "valibot";
import { inHistoryOrder, preferReported, type StageTransition } from "../core/lead-history";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { findConnection } from "./connection-operations";
import { readAllRecords } from "../records/read-all-records";
import type { OnboardingDeps } from "./onboarding-deps";

/** Open leads listed per stage as the longest waiting. */
export const LONGEST_WAITING = 5;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const ratio = v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1)));
const seconds = v.nullable(v.pipe(v.number(), v.minValue(0)));

export const StageVelocitySchema = v.object({
  stage_id: v.string(),
  /** Leads that entered the stage in the period (each entry counts: a lead that comes back counts again). */
  entered: count,
  /** Of those entries, how many later reached the next stage (by sort, then id); null for the last stage. */
  to_next: v.nullable(count),
  /** Of those entries, how many later reached a won stage of the pipeline. */
  to_won: count,
  conversion_to_next: ratio,
  conversion_to_won: ratio,
  /** Time in the stage of the entries of the period that have left it: median and 90th percentile (nearest rank), null when none has left. */
  median_seconds_in_stage: seconds,
  p90_seconds_in_stage: seconds,
});

export const WaitingLeadSchema = v.object({ lead_id: v.string(), stage_id: v.string(), since: IsoTimeSchema, seconds: v.pipe(v.number(), v.minValue(0)) });

export const PipelineVelocitySchema = v.object({
  pipeline_id: v.string(),
  /** One row per calendar month (UTC) in which a lead entered a stage of the pipeline, oldest first. */
  periods: v.array(v.object({ period: v.string(), stages: v.array(StageVelocitySchema) })),
  /** Open leads (not deleted, in an open stage) that have waited longest in their stage, longest first: at most LONGEST_WAITING per stage. */
  longest_waiting: v.array(WaitingLeadSchema),
});

export const VelocitySchema = v.object({ pipelines: v.array(PipelineVelocitySchema), computed_at: IsoTimeSchema });
export type Velocity = v.InferOutput<typeof VelocitySchema>;

type Doc = Record<string, unknown>;
interface Stage {
  readonly id: string;
  readonly kind: string;
}
/** One stay of a lead in a stage: entered at `from`, left at `to` (null: still there). */
interface Stay {
  readonly leadId: string;
  readonly stageId: string;
  readonly from: string;
  readonly to: string | null;
  /** Stages the lead entered after this one, in this pipeline. */
  readonly later: ReadonlySet<string>;
}

/** The value at the nearest rank: the smallest value with at least p of the values at or below it. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** A pipeline's stages in order: sort, then id. */
function orderedStages(stages: readonly Doc[], pipelineId: string): Stage[] {
  return stages
    .filter((stage) => stage["pipeline_id"] === pipelineId)
    .sort((a, b) => Number(a["sort"] ?? 0) - Number(b["sort"] ?? 0) || text(a["id"]).localeCompare(text(b["id"])))
    .map((stage) => ({ id: text(stage["id"]), kind: text(stage["kind"]) }));
}

/** Each lead's stays in this pipeline's stages, from its transitions in history order. */
function staysOf(transitions: readonly StageTransition[], pipelineId: string): Stay[] {
  const byLead = new Map<string, StageTransition[]>();
  for (const transition of transitions) {
    if (transition.pipeline_id !== pipelineId) continue;
    byLead.set(transition.lead_id, [...(byLead.get(transition.lead_id) ?? []), transition]);
  }
  const stays: Stay[] = [];
  for (const [leadId, own] of byLead) {
    const ordered = inHistoryOrder(own).filter((t) => t.to_stage_id !== null);
    ordered.forEach((t, index) => {
      const next = ordered[index + 1];
      stays.push({ leadId, stageId: t.to_stage_id!, from: t.at, to: next?.at ?? null, later: new Set(ordered.slice(index + 1).map((later) => later.to_stage_id!)) });
    });
  }
  return stays;
}

/**
 * Pipeline velocity, pure: per pipeline and calendar month, each stage's
 * entries, their conversion to the next stage and to won, and the time spent
 * in it; and the open leads that have waited longest where they stand.
 */
export function computeVelocity(input: { pipelines: readonly Doc[]; stages: readonly Doc[]; leads: readonly Doc[]; transitions: readonly StageTransition[] }, now: Date): Velocity {
  const pipelines = [...input.pipelines].sort((a, b) => Number(a["sort"] ?? 0) - Number(b["sort"] ?? 0) || text(a["id"]).localeCompare(text(b["id"])));
  const current = new Map(input.leads.map((lead) => [text(lead["id"]), lead]));
  return {
    pipelines: pipelines.map((pipeline) => {
      const pipelineId = text(pipeline["id"]);
      const stages = orderedStages(input.stages, pipelineId);
      const won = new Set(stages.filter((stage) => stage.kind === "won").map((stage) => stage.id));
      const stays = staysOf(input.transitions, pipelineId);
      const periods = [...new Set(stays.map((stay) => stay.from.slice(0, 7)))].sort();
      return {
        pipeline_id: pipelineId,
        periods: periods.map((period) => ({
          period,
          stages: stages.map((stage, index) => {
            const entries = stays.filter((stay) => stay.stageId === stage.id && stay.from.startsWith(period));
            const next = stages[index + 1];
            const toNext = next === undefined ? null : entries.filter((stay) => stay.later.has(next.id)).length;
            const toWon = entries.filter((stay) => [...stay.later].some((id) => won.has(id))).length;
            const spent = entries.flatMap((stay) => (stay.to === null ? [] : [(Date.parse(stay.to) - Date.parse(stay.from)) / 1000])).sort((a, b) => a - b);
            return {
              stage_id: stage.id,
              entered: entries.length,
              to_next: toNext,
              to_won: toWon,
              conversion_to_next: toNext === null || entries.length === 0 ? null : toNext / entries.length,
              conversion_to_won: entries.length === 0 ? null : toWon / entries.length,
              median_seconds_in_stage: nearestRank(spent, 0.5),
              p90_seconds_in_stage: nearestRank(spent, 0.9),
            };
          }),
        })),
        longest_waiting: stages
          .filter((stage) => stage.kind === "open")
          .flatMap((stage) =>
            stays
              .filter((stay) => stay.stageId === stage.id && stay.to === null && isOpenIn(current.get(stay.leadId), pipelineId, stage.id))
              .map((stay) => ({ lead_id: stay.leadId, stage_id: stage.id, since: stay.from, seconds: Math.max(0, (now.getTime() - Date.parse(stay.from)) / 1000) }))
              .sort((a, b) => b.seconds - a.seconds || a.lead_id.localeCompare(b.lead_id))
              .slice(0, LONGEST_WAITING),
          )
          .sort((a, b) => b.seconds - a.seconds || a.lead_id.localeCompare(b.lead_id)),
      };
    }),
    computed_at: now.toISOString(),
  };
}

/** The stored lead stands in this stage and is not deleted (its history and its record agree). */
function isOpenIn(lead: Doc | undefined, pipelineId: string, stageId: string): boolean {
  return lead !== undefined && lead["is_deleted"] !== true && lead["pipeline_id"] === pipelineId && lead["stage_id"] === stageId;
}

/** GET .../analytics/velocity: reads pipelines, stages, leads and every transition of the connection (a full read, like the funnel). */
export async function getVelocity(deps: Pick<OnboardingDeps, "connections" | "keySpace" | "records" | "history" | "clock">, account: string, id: string): Promise<Velocity> {
  await findConnection(deps, account, id);
  const [pipelines, stages, leads, transitions] = await Promise.all([
    readAllRecords(deps.records, id, "pipelines"),
    readAllRecords(deps.records, id, "stages"),
    readAllRecords(deps.records, id, "leads"),
    deps.history.allTransitions(id),
  ]);
  return computeVelocity({ pipelines, stages, leads, transitions: preferReported(transitions) }, deps.clock.now());
}
