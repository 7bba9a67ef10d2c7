import { api, connectionPath } from "./api";
import { chartFigure, dataTable, SERIES_COLOURS } from "./chart-figure";
import type { Quality, QualityRule } from "./data-trust-api";
import { h } from "./dom";
import { timeOf, when } from "./time";
import { findingItem } from "./findings-list";
import { entityWords } from "./entity-words";

/** A connection's data quality (GET .../quality): per kind of record the rules its records broke without failing the sync, their trend, samples and fixes. */
export async function qualityView(outlet: HTMLElement, id: string): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, "Data quality"),
    status,
  );
  let quality: Quality;
  try {
    quality = await api<Quality>("GET", `${connectionPath(id)}/quality`);
  } catch (error) {
    status.textContent = (error as Error).message;
    return;
  }
  const rules = quality.entities.flatMap((entity) => entity.rules.map((rule) => ({ entity: entity.entity, rule })));
  status.textContent =
    quality.runs.length === 0
      ? "No finished run yet: findings appear once a run has ended."
      : `${rules.length === 0 ? "No record needed a look" : `${rules.length} rule${rules.length === 1 ? "" : "s"} broken`} in the last ${quality.runs.length} finished run${quality.runs.length === 1 ? "" : "s"}.`;
  outlet.append(
    h(
      "p",
      { class: "note" },
      "Each finding counts the records of a run that broke a rule the sync lets pass: it stored them, but they may be incomplete, or missed by later syncs. Each rule says what your CRM's developers change.",
    ),
    ...(rules.length === 0 ? [] : [h("section", { class: "card", "aria-labelledby": "trend-title" }, h("h2", { id: "trend-title" }, "Trend per rule"), trendChart(quality))]),
    ...quality.entities
      .filter((entity) => entity.rules.length > 0)
      .map((entity) =>
        h(
          "section",
          { class: "card", "aria-labelledby": `quality-${entity.entity}`, "data-entity": entity.entity },
          h("h2", { id: `quality-${entity.entity}` }, entityWords(entity.entity)),
          h("ul", { class: "findings" }, entity.rules.map((rule) => findingItem(id, entity.entity, rule, rule.fix, countLine(rule)))),
        ),
      ),
  );
}

function countLine(rule: QualityRule): string {
  const last = rule.last_successful_run === null ? "no successful run" : `${rule.last_successful_run} record${rule.last_successful_run === 1 ? "" : "s"} in the last successful run`;
  return `${last} · ${rule.counts.map((entry) => entry.count).join(", ")} over the last ${rule.counts.length} runs, newest first`;
}

const DASHES: readonly number[][] = [[], [8, 4], [2, 3], [12, 3, 2, 3]];
const POINT_STYLES = ["circle", "rect", "triangle", "rectRot", "crossRot"] as const;

/** One line per entity and rule: its count in each finished run, oldest on the left. */
function trendChart(quality: Quality): HTMLElement {
  const runs = [...quality.runs].reverse();
  const series = quality.entities.flatMap((entity) =>
    entity.rules.map((rule) => ({ label: `${entityWords(entity.entity)}: ${rule.rule}`, counts: [...rule.counts].reverse().map((entry) => entry.count) })),
  );
  const table = dataTable(
    "Records that hit each rule, per run, oldest first",
    ["Rule", ...runs.map((run) => timeOf(run.started_at))],
    series.map((line) => [line.label, ...line.counts]),
  );
  return chartFigure({
    name: "quality-trend",
    caption: `Records per rule over the last ${runs.length} runs`,
    summary: `Line chart, one line per rule (${series.map((line) => line.label).join("; ")}), of the records that hit it in each of ${runs.length} runs.`,
    table,
    config: {
      type: "line",
      data: {
        labels: runs.map((run) => when(run.started_at)),
        datasets: series.map((line, index) => {
          const colour = SERIES_COLOURS[index % SERIES_COLOURS.length]!;
          // Not by colour alone: each line also has its own dash and point shape, and lines that coincide stay visible.
          return {
            label: line.label,
            data: line.counts,
            borderColor: colour,
            backgroundColor: colour,
            borderDash: DASHES[index % DASHES.length]!,
            pointStyle: POINT_STYLES[index % POINT_STYLES.length]!,
            pointRadius: 5,
          };
        }),
      },
      options: {
        plugins: { legend: { labels: { usePointStyle: true } } },
        // One run or many: the x axis keeps room at both ends, so a single point and its label are never clipped.
        layout: { padding: { left: 8, right: 8 } },
        scales: { x: { offset: true, ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 6 } }, y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: "records" } } },
      },
    },
  });
}
