import { api, connectionPath } from "./api";
import { dataTable } from "./chart-figure";
import type { RecordWithLineage } from "./data-trust-api";
import { h, uid } from "./dom";
import { percent, type PipelineFunnel } from "./funnel-api";
import { timeOf } from "./time";
import { monthInWords, timeInWords, type PipelineVelocity, type StageVelocity, type Velocity } from "./velocity-api";

/** What every pipeline's velocity part shares: the one read of the velocity route per funnel view, and the waiting leads' names. */
export interface VelocityRead {
  readonly velocity: Promise<Velocity>;
  readonly leadName: (leadId: string) => Promise<string>;
}

/** Starts the view's one read of the velocity figures; each waiting lead's name is read once, on demand (its id when it has none). */
export function readVelocity(connectionId: string): VelocityRead {
  const velocity = api<Velocity>("GET", `${connectionPath(connectionId)}/analytics/velocity`);
  const names = new Map<string, Promise<string>>();
  const leadName = (leadId: string) => {
    let name = names.get(leadId);
    if (name === undefined) {
      name = api<RecordWithLineage>("GET", `${connectionPath(connectionId)}/records/leads/${encodeURIComponent(leadId)}`)
        .then(({ record }) => (typeof record?.["name"] === "string" && record["name"].trim() !== "" ? record["name"] : leadId))
        .catch(() => leadId);
      names.set(leadId, name);
    }
    return name;
  };
  // A failed read is shown by each part; the rejection is handled here so that it is never reported unhandled.
  velocity.catch(() => undefined);
  return { velocity, leadName };
}

const EMPTY = "No stage moves recorded yet: stage history builds up from the next syncs, as leads enter and leave stages.";

/** Per stage, for the month chosen: entries, the share on to the next stage and to won, and the time spent there. */
function monthTable(pipelineName: string, stageName: (id: string) => string, period: string, stages: readonly StageVelocity[]): HTMLElement {
  const table = dataTable(
    `How leads of ${pipelineName} moved, for those that entered each stage in ${monthInWords(period)}`,
    ["Stage", "Entered", "On to the next stage", "Reached won", "Typical time in the stage (median)", "9 in 10 left within"],
    stages.map((stage) => [
      stageName(stage.stage_id),
      stage.entered,
      percent(stage.conversion_to_next),
      percent(stage.conversion_to_won),
      timeInWords(stage.median_seconds_in_stage),
      timeInWords(stage.p90_seconds_in_stage),
    ]),
  );
  table.classList.add("velocity-table");
  table.querySelectorAll("tbody tr").forEach((row, index) => row.setAttribute("data-stage", stages[index]!.stage_id));
  return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `Stage by stage, ${monthInWords(period)}` }, table);
}

/** The open leads waiting longest in each stage, with their names when the CRM gave one. */
async function waitingTable(pipelineName: string, stageName: (id: string) => string, rows: PipelineVelocity["longest_waiting"], read: VelocityRead): Promise<HTMLElement> {
  if (rows.length === 0) return h("p", { class: "note" }, "No open lead is waiting in a stage.");
  const names = await Promise.all(rows.map((row) => read.leadName(row.lead_id)));
  const table = dataTable(
    `Open leads of ${pipelineName} waiting longest in their stage`,
    ["Lead", "Stage", "In it since", "Waiting"],
    rows.map((row, index) => [names[index]!, stageName(row.stage_id), timeOf(row.since), timeInWords(row.seconds)]),
  );
  table.querySelectorAll("tbody tr").forEach((row, index) => row.setAttribute("data-lead", rows[index]!.lead_id));
  return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `Leads waiting longest in ${pipelineName}` }, table);
}

/** The pipeline's velocity: a month picker (the latest month with entries first), the month's stages, and the leads waiting longest. */
export function velocityPart(pipeline: PipelineFunnel, read: VelocityRead): Node {
  const pipelineName = pipeline.name ?? pipeline.id;
  const names = new Map(pipeline.stages.map((stage) => [stage.id, stage.name ?? stage.id]));
  const stageName = (id: string) => names.get(id) ?? id;
  const body = h("div", { role: "status", "aria-live": "polite" }, "Loading how fast leads move…");
  const section = h("section", { class: "velocity", "aria-label": `How fast leads of ${pipelineName} move` }, h("h3", null, "How fast leads move"), body);
  void read.velocity.then(
    async (velocity) => {
      const own = velocity.pipelines.find((row) => row.pipeline_id === pipeline.id);
      if (own === undefined || own.periods.length === 0) {
        body.replaceChildren(h("p", { class: "note" }, EMPTY));
        return;
      }
      const periods = own.periods;
      const latest = periods[periods.length - 1]!;
      const monthBox = h("div", null, monthTable(pipelineName, stageName, latest.period, latest.stages));
      const pickerId = uid("velocity-month");
      const picker = h(
        "select",
        { id: pickerId, "data-test": "velocity-month" },
        [...periods].reverse().map((row) => h("option", { value: row.period, ...(row === latest ? { selected: true } : {}) }, monthInWords(row.period))),
      );
      picker.addEventListener("change", () => {
        const chosen = periods.find((row) => row.period === picker.value) ?? latest;
        monthBox.replaceChildren(monthTable(pipelineName, stageName, chosen.period, chosen.stages));
      });
      const waiting = await waitingTable(pipelineName, stageName, own.longest_waiting, read);
      body.removeAttribute("role");
      body.removeAttribute("aria-live");
      body.replaceChildren(
        h("p", { class: "note" }, "From each lead's stage history: where it entered a stage, and what became of it. Counted ", h("span", { "data-test": "velocity-as-of" }, timeOf(velocity.computed_at)), "."),
        h("p", { class: "field" }, h("label", { for: pickerId }, "Month leads entered the stage "), picker),
        monthBox,
        h("h4", null, "Waiting longest"),
        waiting,
      );
    },
    (error: Error) => body.replaceChildren(`How fast leads move could not be read: ${error.message}`),
  );
  return section;
}
