import * as v from "valibot";
import { IsoTimeSchema } from "../core/iso-time-schema";
import { WholeAmountSchema } from "../records/fields/price";

/** Loss reasons listed per pipeline, most frequent first. */
export const TOP_LOSS_REASONS = 5;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const share = v.pipe(v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1))));
const readonlyArray = <S extends v.GenericSchema>(item: S) => v.pipe(v.array(item), v.readonly());

/**
 * How `reached` is known. Today from each lead's current stage alone (the spec's leads carry no history): a lead in
 * stage k (open, or won) counts as having reached every open stage before k in stage order. Stage history (from the
 * optional /events) is the basis a later release adds beside it.
 */
export const REACHED_BASES = ["current_stages"] as const;

export const FunnelStageSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  kind: v.string(),
  leads: v.pipe(count, v.description("Leads in this stage now (not deleted)")),
  reached: v.pipe(count, v.description("Leads that reached this stage (see reached_from): those in it, and for an open stage those in a later open or won stage")),
  to_next: v.pipe(share, v.description("Open stages: the share of the leads that reached it that reached the next open stage (the last open stage: won); null for won and lost stages, or when none reached it")),
  to_won: v.pipe(share, v.description("Open stages: the share of the leads that reached it that are won; null for won and lost stages, or when none reached it")),
});
export type FunnelStage = v.InferOutput<typeof FunnelStageSchema>;

export const PipelineFunnelSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  /** In stage order (`sort`, then id). */
  stages: readonlyArray(FunnelStageSchema),
  won: count,
  lost: count,
  /** Sum of `price` over won leads (whole numbers, the connection's one currency, not stored), exact: digits as a string beyond 2^53. */
  revenue_won: WholeAmountSchema,
  top_loss_reasons: readonlyArray(v.object({ reason: v.string(), leads: count })),
  /** Leads whose stage does not resolve (not synced, or not in this pipeline): neither won nor lost. */
  unresolved_won_lost: count,
  /** Open tasks of this pipeline's leads whose due_at had passed when the figures were computed. */
  overdue_tasks: count,
  /** Calls of this pipeline's leads with duration_seconds > 0. */
  connected_calls: count,
});
export type PipelineFunnel = v.InferOutput<typeof PipelineFunnelSchema>;

export const FunnelSchema = v.object({
  computed_at: v.pipe(IsoTimeSchema, v.description("When the figures were computed: at the end of the run named by run_id")),
  run_id: v.pipe(v.nullable(v.string()), v.description("The run (or audit) at whose end the figures were computed; null when computed on request (no run had ended since figures were kept)")),
  reached_from: v.pipe(v.picklist(REACHED_BASES), v.description("What `reached` is derived from: current_stages (a lead counts as having reached every open stage before its own)")),
  /** In pipeline order (`sort`, then id). */
  pipelines: readonlyArray(PipelineFunnelSchema),
  /** Leads (not deleted) whose pipeline_id names no synced pipeline. */
  leads_without_pipeline: count,
});
export type Funnel = v.InferOutput<typeof FunnelSchema>;
