import { storedWhole, wholeAmountOf } from "../records/fields/price";
import { TOP_LOSS_REASONS, type Funnel, type FunnelStage, type PipelineFunnel } from "./funnel";

type Doc = Readonly<Record<string, unknown>>;

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const bySortThenId = (a: Doc, b: Doc) => num(a["sort"]) - num(b["sort"]) || String(a["id"]).localeCompare(String(b["id"]));
const shareOf = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

interface PipelineTally {
  /** Leads per stage id (the stage may not be one of the pipeline's: unresolved). */
  readonly byStage: Map<string, number>;
  won: number;
  lost: number;
  revenue: bigint;
  readonly reasons: Map<string, number>;
}

/**
 * The funnel per pipeline, from the canonical records handed in one at a time, in any order (the figures' refresh
 * reads each collection a page at a time and keeps no document): per pipeline and stage a count, per lead only the
 * pipeline its tasks and calls count for. Deleted leads count nowhere; won and lost are the stored is_won / is_lost
 * (derived from the stage's kind at ingestion); a task or call counts for the pipeline of the lead it links to.
 */
export class FunnelBuilder {
  private readonly pipelines: Doc[] = [];
  private readonly stages: Doc[] = [];
  private readonly tallies = new Map<string, PipelineTally>();
  private readonly pipelineOfLead = new Map<string, string>();
  private readonly overdueByLead = new Map<string, number>();
  private readonly connectedByLead = new Map<string, number>();

  constructor(private readonly now: Date) {}

  addPipeline(doc: Doc): void {
    this.pipelines.push({ id: doc["id"], name: doc["name"], sort: doc["sort"] });
  }

  addStage(doc: Doc): void {
    this.stages.push({ id: doc["id"], name: doc["name"], kind: doc["kind"], sort: doc["sort"], pipeline_id: doc["pipeline_id"] });
  }

  addLead(lead: Doc): void {
    if (lead["is_deleted"] === true) return;
    const pipelineId = String(lead["pipeline_id"]);
    this.pipelineOfLead.set(String(lead["id"]), pipelineId);
    let tally = this.tallies.get(pipelineId);
    if (tally === undefined) this.tallies.set(pipelineId, (tally = { byStage: new Map(), won: 0, lost: 0, revenue: 0n, reasons: new Map() }));
    const stageId = String(lead["stage_id"]);
    tally.byStage.set(stageId, (tally.byStage.get(stageId) ?? 0) + 1);
    if (lead["is_won"] === true) {
      tally.won += 1;
      tally.revenue += wholeAmountOf(lead["price"]);
    }
    if (lead["is_lost"] === true) {
      tally.lost += 1;
      const reason = text(lead["loss_reason"]);
      if (reason !== null) tally.reasons.set(reason, (tally.reasons.get(reason) ?? 0) + 1);
    }
  }

  addTask(task: Doc): void {
    const due = text(task["due_at"]);
    if (task["is_completed"] === true || due === null || !(Date.parse(due) < this.now.getTime())) return;
    const lead = String(task["lead_id"]);
    this.overdueByLead.set(lead, (this.overdueByLead.get(lead) ?? 0) + 1);
  }

  addCall(call: Doc): void {
    if (!(num(call["duration_seconds"]) > 0)) return;
    const lead = String(call["lead_id"]);
    this.connectedByLead.set(lead, (this.connectedByLead.get(lead) ?? 0) + 1);
  }

  build(runId: string | null): Funnel {
    const known = new Set(this.pipelines.map((pipeline) => String(pipeline["id"])));
    const perLead = (counts: Map<string, number>) => {
      const byPipeline = new Map<string, number>();
      for (const [lead, count] of counts) {
        const pipeline = this.pipelineOfLead.get(lead);
        if (pipeline !== undefined) byPipeline.set(pipeline, (byPipeline.get(pipeline) ?? 0) + count);
      }
      return byPipeline;
    };
    const overdue = perLead(this.overdueByLead);
    const connected = perLead(this.connectedByLead);
    let withoutPipeline = 0;
    for (const [pipelineId, tally] of this.tallies) if (!known.has(pipelineId)) for (const leads of tally.byStage.values()) withoutPipeline += leads;
    return {
      computed_at: this.now.toISOString(),
      run_id: runId,
      reached_from: "current_stages",
      pipelines: [...this.pipelines].sort(bySortThenId).map((pipeline): PipelineFunnel => {
        const id = String(pipeline["id"]);
        const tally = this.tallies.get(id);
        const stages = this.stages.filter((stage) => String(stage["pipeline_id"]) === id).sort(bySortThenId);
        const inStages = stages.reduce((sum, stage) => sum + (tally?.byStage.get(String(stage["id"])) ?? 0), 0);
        const all = [...(tally?.byStage.values() ?? [])].reduce((sum, leads) => sum + leads, 0);
        return {
          id,
          name: text(pipeline["name"]),
          stages: stageFigures(stages, (stageId) => tally?.byStage.get(stageId) ?? 0),
          won: tally?.won ?? 0,
          lost: tally?.lost ?? 0,
          revenue_won: storedWhole((tally?.revenue ?? 0n).toString()),
          top_loss_reasons: [...(tally?.reasons ?? [])]
            .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
            .slice(0, TOP_LOSS_REASONS)
            .map(([reason, leads]) => ({ reason, leads })),
          unresolved_won_lost: all - inStages,
          overdue_tasks: overdue.get(id) ?? 0,
          connected_calls: connected.get(id) ?? 0,
        };
      }),
      leads_without_pipeline: withoutPipeline,
    };
  }
}

/**
 * Each stage's leads, the leads that reached it and its conversions, from current stages alone: a lead in stage k
 * (open, or won) counts as having reached every open stage before k in stage order; a lost lead counts in its lost
 * stage only (where it was lost from is not known without stage history).
 */
function stageFigures(stages: readonly Doc[], leadsIn: (stageId: string) => number): FunnelStage[] {
  const kinds = stages.map((stage) => String(stage["kind"]));
  const leads = stages.map((stage) => leadsIn(String(stage["id"])));
  const reached = leads.map((count, k) => (kinds[k] === "lost" ? count : leads.reduce((sum, later, j) => sum + (j > k && kinds[k] === "open" && kinds[j] !== "lost" ? later : 0), count)));
  const wonReaching = (k: number) => leads.reduce((sum, later, j) => sum + (j > k && kinds[j] === "won" ? later : 0), 0);
  return stages.map((stage, k) => {
    const open = kinds[k] === "open";
    const next = kinds.findIndex((kind, j) => j > k && kind === "open");
    return {
      id: String(stage["id"]),
      name: text(stage["name"]),
      kind: kinds[k]!,
      leads: leads[k]!,
      reached: reached[k]!,
      to_next: open ? shareOf(next === -1 ? wonReaching(k) : reached[next]!, reached[k]!) : null,
      to_won: open ? shareOf(wonReaching(k), reached[k]!) : null,
    };
  });
}

/** The canonical records of one connection, whole (tests and the hostile-input checks; the refresh streams them). */
export interface FunnelInput {
  readonly pipelines: readonly Doc[];
  readonly stages: readonly Doc[];
  readonly leads: readonly Doc[];
  readonly tasks: readonly Doc[];
  readonly calls: readonly Doc[];
}

/** The funnel of whole collections at `now`. */
export function computeFunnel(input: FunnelInput, now: Date, runId: string | null = null): Funnel {
  const builder = new FunnelBuilder(now);
  input.pipelines.forEach((doc) => builder.addPipeline(doc));
  input.stages.forEach((doc) => builder.addStage(doc));
  input.tasks.forEach((doc) => builder.addTask(doc));
  input.calls.forEach((doc) => builder.addCall(doc));
  input.leads.forEach((doc) => builder.addLead(doc));
  return builder.build(runId);
}
