import type { Chart, Plugin } from "chart.js";
import { chartFigure, SERIES_COLOURS } from "./chart-figure";
import type { FunnelStage } from "./funnel-api";

const WON = "#1a7f37";

/** Writes each bar's number at its centre (white on the bar, dark beside a bar too short to hold it). */
const barNumbers = (numbers: readonly number[]): Plugin<"bar"> => ({
  id: "barNumbers",
  afterDatasetsDraw(chart: Chart<"bar">) {
    const { ctx } = chart;
    const bars = chart.getDatasetMeta(0).data;
    ctx.save();
    ctx.font = "600 14px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    bars.forEach((bar, index) => {
      const label = numbers[index]!.toLocaleString("en-US");
      const { x, y, width } = bar.getProps(["x", "y", "width"], true) as { x: number; y: number; width: number };
      const inside = Math.abs(width) > ctx.measureText(label).width + 12;
      ctx.fillStyle = inside ? "#ffffff" : "#1b1f24";
      ctx.textAlign = inside ? "center" : "left";
      ctx.fillText(label, inside ? x - width / 2 : x + 6, y);
    });
    ctx.restore();
  },
});

/**
 * A pipeline's funnel, drawn as one: a bar per open and won stage in stage order, centred, as wide as the leads that
 * reached it, its number on it (won in green). Lost stages are told apart, beside it. `table` is its text alternative.
 */
export function funnelChart(name: string, stages: readonly FunnelStage[], table: HTMLTableElement): HTMLElement {
  const drawn = stages.filter((stage) => stage.kind !== "lost");
  const widest = Math.max(1, ...drawn.map((stage) => stage.reached));
  return chartFigure({
    name: "funnel",
    caption: `Leads that reached each stage of ${name}`,
    summary: `Funnel of ${name}: ${drawn.map((stage) => `${stage.name ?? stage.id} ${stage.reached}`).join(", ")}.`,
    table,
    size: drawn.length > 6 ? "tall" : "short",
    config: {
      type: "bar",
      data: {
        labels: drawn.map((stage) => stage.name ?? stage.id),
        datasets: [
          {
            label: "Leads that reached it",
            // Floating bars from -n/2 to n/2: centred, so the stages stack into a funnel.
            data: drawn.map((stage) => [-stage.reached / 2, stage.reached / 2] as [number, number]),
            backgroundColor: drawn.map((stage) => (stage.kind === "won" ? WON : SERIES_COLOURS[0])),
            barPercentage: 1,
            categoryPercentage: 0.85,
            minBarLength: 2,
            maxBarThickness: 56,
          },
        ],
      },
      options: {
        indexAxis: "y",
        scales: { x: { display: false, min: -widest / 2, max: widest / 2 }, y: { grid: { display: false } } },
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: (item) => `${drawn[item.dataIndex]?.reached ?? 0} leads reached it` } } },
      },
      plugins: [barNumbers(drawn.map((stage) => stage.reached))],
    },
  });
}
