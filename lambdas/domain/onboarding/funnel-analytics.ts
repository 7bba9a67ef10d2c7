import * as v from "valibot";
import type { Collection } from "../core/entities";
import { IsoTimeSchema } from "../core/iso-time-schema";
import type { RecordStore } from "../core/ports/record-store";
import { WholeAmountSchema, storedWhole, wholeAmountOf } from "../records/fields/price";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";

/** Loss reasons listed per pipeline, most frequent first. */
export const TOP_LOSS_REASONS = 5;
/** Records per read while the analytics scan a collection (the store's own maximum). */
const SCAN_PAGE = 1000;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const readonlyArray = <S extends v.GenericSchema>(item: S) => v.pipe(v.array(item), v.readonly());

export const FunnelStageSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  kind: v.string(),
  leads: count,
});
export type FunnelStage = v.InferOutput<typeof FunnelStageSchema>;

export const PipelineFunnelSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  /** In stage order (`sort`, then id). */
  stages: readonlyArray(FunnelStageSchema),
  won: count,
  lost: count,
  /** Sum of `price` over won leads (whole numbers, the connection's one currency), exact: digits as a string beyond 2^53. */
  revenue_won: WholeAmountSchema,
  top_loss_reasons: readonlyArray(v.object({ reason: v.string(), leads: count })),
  /** Leads whose stage does not resolve (not synced, or not in this pipeline): neither won nor lost. */
  unresolved_won_lost: count,
  /** Open tasks of this pipeline's leads whose due_at has passed. */
  overdue_tasks: count,
  /** Calls of this pipeline's leads with duration_seconds > 0. */
  connected_calls: count,
});
export type PipelineFunnel = v.InferOutput<typeof PipelineFunnelSchema>;

export const FunnelSchema = v.object({
  computed_at: IsoTimeSchema,
  /** In pipeline order (`sort`, then id). */
  pipelines: readonlyArray(PipelineFunnelSchema),
  /** Leads (not deleted) whose pipeline_id names no synced pipeline. */
  leads_without_pipeline: count,
});
export type Funnel = v.InferOutput<typeof FunnelSchema>;

type Doc = Readonly<Record<string, unknown>>;

export interface FunnelInput {
  readonly pipelines: readonly Doc[];
  readonly stages: readonly Doc[];
  readonly leads: readonly Doc[];
  readonly tasks: readonly Doc[];
  readonly calls: readonly Doc[];
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const bySortThenId = (a: Doc, b: Doc) => num(a["sort"]) - num(b["sort"]) || String(a["id"]).localeCompare(String(b["id"]));

/**
 * The funnel per pipeline, from the canonical records only. Deleted leads
 * count nowhere; won and lost are the stored is_won / is_lost (derived from
 * the stage's kind at ingestion); a task or call counts for the pipeline of
 * the lead it links to.
 */
export function computeFunnel(input: FunnelInput, now: Date): Funnel {
  const funnels = new Map<string, { stages: Map<string, { stage: Doc; leads: number }>; won: number; lost: number; revenue: bigint; reasons: Map<string, number>; unresolved: number; overdue: number; connected: number }>();
  for (const pipeline of input.pipelines) {
    funnels.set(String(pipeline["id"]), { stages: new Map(), won: 0, lost: 0, revenue: 0n, reasons: new Map(), unresolved: 0, overdue: 0, connected: 0 });
  }
  for (const stage of [...input.stages].sort(bySortThenId)) {
    funnels.get(String(stage["pipeline_id"]))?.stages.set(String(stage["id"]), { stage, leads: 0 });
  }
  const pipelineOfLead = new Map<string, string>();
  let withoutPipeline = 0;
  for (const lead of input.leads) {
    if (lead["is_deleted"] === true) continue;
    const funnel = funnels.get(String(lead["pipeline_id"]));
    if (funnel === undefined) {
      withoutPipeline += 1;
      continue;
    }
    pipelineOfLead.set(String(lead["id"]), String(lead["pipeline_id"]));
    const row = funnel.stages.get(String(lead["stage_id"]));
    if (row === undefined) funnel.unresolved += 1;
    else row.leads += 1;
    if (lead["is_won"] === true) {
      funnel.won += 1;
      funnel.revenue += wholeAmountOf(lead["price"]);
    }
    if (lead["is_lost"] === true) {
      funnel.lost += 1;
      const reason = text(lead["loss_reason"]);
      if (reason !== null) funnel.reasons.set(reason, (funnel.reasons.get(reason) ?? 0) + 1);
    }
  }
  const nowMs = now.getTime();
  for (const task of input.tasks) {
    const pipeline = pipelineOfLead.get(String(task["lead_id"]));
    const due = text(task["due_at"]);
    if (pipeline === undefined || task["is_completed"] === true || due === null || !(Date.parse(due) < nowMs)) continue;
    funnels.get(pipeline)!.overdue += 1;
  }
  for (const call of input.calls) {
    const pipeline = pipelineOfLead.get(String(call["lead_id"]));
    if (pipeline !== undefined && num(call["duration_seconds"]) > 0) funnels.get(pipeline)!.connected += 1;
  }
  return {
    computed_at: now.toISOString(),
    pipelines: [...input.pipelines].sort(bySortThenId).map((pipeline): PipelineFunnel => {
      const funnel = funnels.get(String(pipeline["id"]))!;
      return {
        id: String(pipeline["id"]),
        name: text(pipeline["name"]),
        stages: [...funnel.stages.values()].map(({ stage, leads }) => ({ id: String(stage["id"]), name: text(stage["name"]), kind: String(stage["kind"]), leads })),
        won: funnel.won,
        lost: funnel.lost,
        revenue_won: storedWhole(funnel.revenue.toString()),
        top_loss_reasons: [...funnel.reasons]
          .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
          .slice(0, TOP_LOSS_REASONS)
          .map(([reason, leads]) => ({ reason, leads })),
        unresolved_won_lost: funnel.unresolved,
        overdue_tasks: funnel.overdue,
        connected_calls: funnel.connected,
      };
    }),
    leads_without_pipeline: withoutPipeline,
  };
}

/** Every stored record of a collection, page by page. */
async function readAll(records: RecordStore, connectionId: string, collection: Collection): Promise<Doc[]> {
  const all: Doc[] = [];
  let cursor: string | null = null;
  do {
    const page = await records.listRecords(connectionId, collection, { limit: SCAN_PAGE, cursor });
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

/** Reads the connection's canonical records and computes its funnel (a full read: see docs/onboarding-api.md). */
export async function readFunnelInput(records: RecordStore, connectionId: string): Promise<FunnelInput> {
  const [pipelines, stages, leads, tasks, calls] = await Promise.all(
    (["pipelines", "stages", "leads", "tasks", "calls"] as const).map((collection) => readAll(records, connectionId, collection)),
  );
  return { pipelines: pipelines!, stages: stages!, leads: leads!, tasks: tasks!, calls: calls! };
}

export async function getFunnel(deps: OnboardingDeps, account: string, id: string): Promise<Funnel> {
  await findConnection(deps, account, id);
  return computeFunnel(await readFunnelInput(deps.records, id), deps.clock.now());
}
