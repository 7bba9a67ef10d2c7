import { api, connectionPath } from "./api";
import { h } from "./dom";
import { funnelChart } from "./funnel-chart";
import { timeOf } from "./time";

interface PipelineFunnel {
  readonly id: string;
  readonly name: string | null;
  readonly stages: readonly { readonly id: string; readonly name: string | null; readonly kind: string; readonly leads: number }[];
  readonly won: number;
  readonly lost: number;
  /** A JSON integer, or beyond 2^53 its exact digits as a string. */
  readonly revenue_won: number | string;
  readonly top_loss_reasons: readonly { readonly reason: string; readonly leads: number }[];
  readonly unresolved_won_lost: number;
  readonly overdue_tasks: number;
  readonly connected_calls: number;
}

/** A whole amount with thousands separators, exact at any size (a string beyond 2^53 is never rounded through a double). */
function amount(value: number | string): string {
  return BigInt(value).toLocaleString("en-US");
}

interface Funnel {
  readonly computed_at: string;
  readonly pipelines: readonly PipelineFunnel[];
  readonly leads_without_pipeline: number;
}

/** The funnel the synced data feeds, one card per pipeline, from GET .../analytics/funnel. */
export async function funnelView(outlet: HTMLElement, id: string): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Computing the funnel…");
  const cards = h("div");
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, "Funnel"),
    h("p", null, h("a", { href: `#/connections/${encodeURIComponent(id)}` }, "← Connection")),
    status,
    cards,
  );
  let funnel: Funnel;
  try {
    funnel = await api<Funnel>("GET", `${connectionPath(id)}/analytics/funnel`);
  } catch (error) {
    status.textContent = (error as Error).message;
    return;
  }
  status.replaceChildren(
    ...(funnel.pipelines.length === 0
      ? ["No pipelines synced yet."]
      : [
          "Computed ",
          timeOf(funnel.computed_at),
          ` from the stored records.${funnel.leads_without_pipeline > 0 ? ` ${funnel.leads_without_pipeline} leads name no synced pipeline.` : ""}`,
        ]),
  );
  cards.replaceChildren(
    ...funnel.pipelines.map((pipeline) =>
      h(
        "section",
        { class: "card", "aria-label": `Pipeline ${pipeline.name ?? pipeline.id}`, "data-pipeline": pipeline.id },
        h("h2", null, pipeline.name ?? pipeline.id),
        funnelChart(
          { name: pipeline.name ?? pipeline.id, stages: pipeline.stages, won: pipeline.won, lost: pipeline.lost, revenue: amount(pipeline.revenue_won) },
          h(
            "table",
            { class: "entities" },
            h("caption", null, `Leads per stage of ${pipeline.name ?? pipeline.id}, in stage order`),
            h("thead", null, h("tr", null, ["Stage", "Kind", "Leads"].map((name) => h("th", { scope: "col" }, name)))),
            h(
              "tbody",
              null,
              pipeline.stages.map((stage) =>
                h("tr", { "data-stage": stage.id }, h("th", { scope: "row" }, stage.name ?? stage.id), h("td", null, stage.kind), h("td", null, stage.leads)),
              ),
            ),
          ),
        ),
        h(
          "dl",
          { class: "facts" },
          fact("Won", pipeline.won, "won"),
          fact("Lost", pipeline.lost, "lost"),
          fact("Revenue won", amount(pipeline.revenue_won), "revenue-won"),
          fact("Unresolved won/lost", pipeline.unresolved_won_lost, "unresolved"),
          fact("Overdue tasks", pipeline.overdue_tasks, "overdue-tasks"),
          fact("Connected calls", pipeline.connected_calls, "connected-calls"),
        ),
        h("h3", null, "Top loss reasons"),
        pipeline.top_loss_reasons.length === 0
          ? h("p", null, "None.")
          : h("ol", { class: "loss-reasons" }, pipeline.top_loss_reasons.map((row) => h("li", null, `${row.reason} (${row.leads})`))),
      ),
    ),
  );
}

function fact(label: string, value: string | number, key: string): Node[] {
  return [h("dt", null, label), h("dd", { "data-test": key }, value)];
}
