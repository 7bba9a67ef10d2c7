import { api, connectionPath } from "./api";
import { dataTable } from "./chart-figure";
import { h } from "./dom";
import { amount, percent, type Funnel, type PipelineFunnel } from "./funnel-api";
import { funnelChart } from "./funnel-chart";
import { timeOf } from "./time";
import { readVelocity, velocityPart, type VelocityRead } from "./velocity-part";

const KIND_WORDS: Readonly<Record<string, string>> = { open: "open", won: "won", lost: "lost" };
const nameOf = (pipeline: PipelineFunnel) => pipeline.name ?? pipeline.id;

/** The funnel drawn, and beside it its table: per stage the leads in it now, those that reached it, and the conversions. */
function stagesPart(pipeline: PipelineFunnel): Node {
  // The spec allows a pipeline without stages: its leads cannot be placed in any, so there is nothing to draw.
  if (pipeline.stages.length === 0) return h("p", { class: "note" }, "This pipeline has no stages in your CRM, so its leads cannot be counted by stage, nor as won or lost.");
  const table = dataTable(
    `Stages of ${nameOf(pipeline)}, in order`,
    ["Stage", "Kind", "In it now", "Reached it", "On to the next stage", "Won from here"],
    pipeline.stages.map((stage) => [stage.name ?? stage.id, KIND_WORDS[stage.kind] ?? stage.kind, stage.leads, stage.reached, percent(stage.to_next), percent(stage.to_won)]),
  );
  table.querySelectorAll("tbody tr").forEach((row, index) => row.setAttribute("data-stage", pipeline.stages[index]!.id));
  return funnelChart(nameOf(pipeline), pipeline.stages, table);
}

/** Won and what it brought. */
function outcomesPart(pipeline: PipelineFunnel): Node {
  return h(
    "dl",
    { class: "facts" },
    fact("Won", pipeline.won, "won"),
    fact("Revenue won", `${amount(pipeline.revenue_won)}, in your CRM's currency (the service does not store it)`, "revenue-won"),
    fact("Lost", pipeline.lost, "lost"),
    fact("In a stage not known", pipeline.unresolved_won_lost, "unresolved"),
    fact("Overdue open tasks", pipeline.overdue_tasks, "overdue-tasks"),
    fact("Calls that connected", pipeline.connected_calls, "connected-calls"),
  );
}

/** Lost, and the most frequent reasons given. */
function lossPart(pipeline: PipelineFunnel): Node {
  return h(
    "section",
    { class: "loss", "aria-label": `Why leads of ${nameOf(pipeline)} were lost` },
    h("h3", null, `Lost: ${pipeline.lost}. The most frequent reasons`),
    pipeline.top_loss_reasons.length === 0 ? h("p", null, "None given.") : h("ol", { class: "loss-reasons" }, pipeline.top_loss_reasons.map((row) => h("li", null, `${row.reason} (${row.leads})`))),
  );
}

/** The parts of a pipeline's card, in order: the funnel from current stages, then the velocity from stage history. */
const PIPELINE_PARTS: readonly ((pipeline: PipelineFunnel, velocity: VelocityRead) => Node)[] = [stagesPart, outcomesPart, lossPart, velocityPart];

/**
 * The funnel per pipeline, as the sync keeps it (GET .../analytics/funnel, computed at the end of the last run), and
 * each pipeline's velocity (GET .../analytics/velocity, read once for the whole view, alongside the funnel).
 */
export async function funnelView(outlet: HTMLElement, id: string): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading the funnel…");
  const cards = h("div");
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, "Funnel"),
    status,
    h(
      "p",
      { class: "note" },
      h("strong", null, "Reached"),
      " counts each lead in the stage it is in now and in every open stage before it: your CRM sends where a lead is, not the stages it passed, so a lead that skipped a stage still counts there. A lost lead counts only in its lost stage.",
    ),
    cards,
  );
  const velocity = readVelocity(id);
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
      : [funnel.run_id === null ? "Counted " : "Counted at the end of the last run, ", timeOf(funnel.computed_at), `, from the stored records.${funnel.leads_without_pipeline > 0 ? ` ${funnel.leads_without_pipeline} leads name no synced pipeline.` : ""}`]),
  );
  cards.replaceChildren(
    ...funnel.pipelines.map((pipeline) =>
      h("section", { class: "card", "aria-label": `Pipeline ${nameOf(pipeline)}`, "data-pipeline": pipeline.id }, h("h2", null, nameOf(pipeline)), PIPELINE_PARTS.map((part) => part(pipeline, velocity))),
    ),
  );
}

function fact(label: string, value: string | number, key: string): Node[] {
  return [h("dt", null, label), h("dd", { "data-test": key }, value)];
}
