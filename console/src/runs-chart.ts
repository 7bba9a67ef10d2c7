import type { RunSummary } from "./api";
import { chartFigure, dataTable, SERIES_COLOURS } from "./chart-figure";
import { duration, h } from "./dom";
import { timeOf } from "./time";
import { recordsOf } from "./health";

/** Runs the history chart draws: the newest ones, at most this many (the API keeps 50). */
export const CHARTED_RUNS = 50;

/** A run's start as an axis label: short, so one label is never clipped and many skip cleanly. */
const SHORT = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

const secondsOf = (run: RunSummary): number | null =>
  run.finished_at === null ? null : Math.max(0, (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000);

/** Records (bars) and duration (line) per run over the last CHARTED_RUNS runs, oldest on the left; `runs` come newest first. */
export function runsChart(connectionId: string, runs: readonly RunSummary[]): HTMLElement {
  const shown = runs.slice(0, CHARTED_RUNS).reverse();
  const labels = shown.map((run) => SHORT.format(new Date(run.started_at)));
  // One run or a hundred: bars never wider than a thumb, points visible while there is room for them.
  const few = shown.length <= 12;
  const table = dataTable(
    "Records and duration per run, oldest first",
    ["Run started", "Status", "Records", "Duration"],
    shown.map((run) => [
      h("a", { href: `#/connections/${encodeURIComponent(connectionId)}/runs/${encodeURIComponent(run.id)}` }, timeOf(run.started_at)),
      run.status,
      recordsOf(run),
      duration(run.started_at, run.finished_at),
    ]),
  );
  return chartFigure({
    name: "runs",
    caption: `Records and duration of the last ${shown.length} run${shown.length === 1 ? "" : "s"}`,
    summary: `Bar chart of records per run and line chart of each run's duration in seconds, ${shown.length} runs, oldest first.`,
    table,
    config: {
      type: "bar",
      data: {
        labels,
        datasets: [
          { type: "bar", label: "Records", data: shown.map(recordsOf), backgroundColor: SERIES_COLOURS[0], yAxisID: "records", order: 2, maxBarThickness: 48 },
          {
            type: "line",
            label: "Duration (s)",
            data: shown.map(secondsOf),
            borderColor: SERIES_COLOURS[3],
            backgroundColor: SERIES_COLOURS[3],
            yAxisID: "seconds",
            order: 1,
            pointRadius: few ? 4 : 0,
            pointHoverRadius: 5,
          },
        ],
      },
      options: {
        layout: { padding: { left: 8, right: 8 } },
        scales: {
          x: { offset: true, ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: few ? 12 : 6 } },
          records: { type: "linear", position: "left", beginAtZero: true, title: { display: true, text: "records" } },
          seconds: { type: "linear", position: "right", beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: "seconds" } },
        },
      },
    },
  });
}
