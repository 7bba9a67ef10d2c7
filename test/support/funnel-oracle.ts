import type { CrmData } from "./crm-source";

type Raw = Record<string, any>;

/**
 * The funnel a test expects, computed from the source's own data (what the test serves), not from anything the
 * service stored: the spec's rules read once more, by hand. Deleted leads count nowhere; won and lost come from the
 * stage's kind (matched case-insensitively); price keeps its whole part; stages go in (sort, id) order; a lead in
 * an open or won stage counts as having reached every open stage before its own; a task or call counts for its lead.
 */
export function expectedFunnel(data: CrmData, now: Date) {
  const order = (a: Raw, b: Raw) => (a["sort"] ?? 0) - (b["sort"] ?? 0) || String(a["id"]).localeCompare(String(b["id"]));
  const leads = (data.leads ?? []).filter((lead: Raw) => lead["is_deleted"] !== true) as Raw[];
  const pipelines = [...((data.pipelines ?? []) as Raw[])].sort(order);
  const kindOf = (pipeline: Raw, stageId: unknown) => (pipeline["stages"] as Raw[]).find((stage) => stage["id"] === stageId)?.["kind"]?.toLowerCase() as string | undefined;
  const whole = (price: unknown) => (price === undefined || price === null ? 0n : BigInt(String(Math.trunc(Number(price)))));
  return {
    reached_from: "current_stages",
    leads_without_pipeline: leads.filter((lead) => !pipelines.some((pipeline) => pipeline["id"] === lead["pipeline_id"])).length,
    pipelines: pipelines.map((pipeline) => {
      const own = leads.filter((lead) => lead["pipeline_id"] === pipeline["id"]);
      const stages = [...(pipeline["stages"] as Raw[])].sort(order);
      const inStage = (id: unknown) => own.filter((lead) => lead["stage_id"] === id).length;
      const won = own.filter((lead) => kindOf(pipeline, lead["stage_id"]) === "won");
      const lost = own.filter((lead) => kindOf(pipeline, lead["stage_id"]) === "lost");
      const reachedOf = (k: number) => {
        const kind = String(stages[k]!["kind"]).toLowerCase();
        if (kind !== "open") return inStage(stages[k]!["id"]);
        return stages.reduce((sum, stage, j) => sum + (j >= k && String(stage["kind"]).toLowerCase() !== "lost" ? inStage(stage["id"]) : 0), 0);
      };
      const wonAfter = (k: number) => stages.reduce((sum, stage, j) => sum + (j > k && String(stage["kind"]).toLowerCase() === "won" ? inStage(stage["id"]) : 0), 0);
      const reasons = new Map<string, number>();
      for (const lead of lost) if (typeof lead["loss_reason"] === "string") reasons.set(lead["loss_reason"], (reasons.get(lead["loss_reason"]) ?? 0) + 1);
      const ownIds = new Set(own.map((lead) => lead["id"]));
      const revenue = won.reduce((sum, lead) => sum + whole(lead["price"]), 0n);
      return {
        id: pipeline["id"],
        name: pipeline["name"] ?? null,
        stages: stages.map((stage, k) => {
          const open = String(stage["kind"]).toLowerCase() === "open";
          const next = stages.findIndex((later, j) => j > k && String(later["kind"]).toLowerCase() === "open");
          const reached = reachedOf(k);
          const share = (part: number) => (open && reached > 0 ? part / reached : null);
          return {
            id: stage["id"],
            name: stage["name"] ?? null,
            kind: String(stage["kind"]).toLowerCase(),
            leads: inStage(stage["id"]),
            reached,
            to_next: share(next === -1 ? wonAfter(k) : reachedOf(next)),
            to_won: share(wonAfter(k)),
          };
        }),
        won: won.length,
        lost: lost.length,
        revenue_won: revenue > BigInt(Number.MAX_SAFE_INTEGER) ? revenue.toString() : Number(revenue),
        top_loss_reasons: [...reasons].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).slice(0, 5).map(([reason, count]) => ({ reason, leads: count })),
        unresolved_won_lost: own.filter((lead) => kindOf(pipeline, lead["stage_id"]) === undefined).length,
        overdue_tasks: ((data.tasks ?? []) as Raw[]).filter(
          (task) => ownIds.has(task["lead_id"]) && task["is_completed"] !== true && typeof task["due_at"] === "string" && Date.parse(task["due_at"]) < now.getTime(),
        ).length,
        connected_calls: ((data.calls ?? []) as Raw[]).filter((call) => ownIds.has(call["lead_id"]) && Number(call["duration_seconds"] ?? 0) > 0).length,
      };
    }),
  };
}
