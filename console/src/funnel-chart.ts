import { chartFigure, SERIES_COLOURS } from "./chart-figure";

interface FunnelStage {
  readonly id: string;
  readonly name: string | null;
  readonly kind: string;
  readonly leads: number;
}

const KIND_COLOURS: Readonly<Record<string, string>> = { won: "#1a7f37", lost: "#b42318" };

/**
 * A pipeline's funnel, drawn as one: a bar per stage in stage order, centred,
 * as wide as the stage's leads (won green, lost red). `table` is its text alternative.
 */
export function funnelChart(
  pipeline: { readonly name: string; readonly stages: readonly FunnelStage[]; readonly won: number; readonly lost: number; readonly revenue: string },
  table: HTMLTableElement,
): HTMLElement {
  const widest = Math.max(1, ...pipeline.stages.map((stage) => stage.leads));
  return chartFigure({
    name: "funnel",
    caption: `Funnel of ${pipeline.name}: ${pipeline.won} won, ${pipeline.lost} lost, revenue won ${pipeline.revenue}`,
    summary: `Funnel of ${pipeline.name}, ${pipeline.stages.length} stages: ${pipeline.stages.map((stage) => `${stage.name ?? stage.id} ${stage.leads}`).join(", ")}.`,
    table,
    size: pipeline.stages.length > 6 ? "tall" : "short",
    config: {
      type: "bar",
      data: {
        labels: pipeline.stages.map((stage) => stage.name ?? stage.id),
        datasets: [
          {
            label: "Leads",
            // Floating bars from -n/2 to n/2: centred, so the stages stack into a funnel.
            data: pipeline.stages.map((stage) => [-stage.leads / 2, stage.leads / 2] as [number, number]),
            backgroundColor: pipeline.stages.map((stage) => KIND_COLOURS[stage.kind] ?? SERIES_COLOURS[0]),
            barPercentage: 1,
            categoryPercentage: 0.9,
            minBarLength: 2,
          },
        ],
      },
      options: {
        indexAxis: "y",
        scales: { x: { display: false, min: -widest / 2, max: widest / 2 }, y: { grid: { display: false } } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => `${pipeline.stages[item.dataIndex]?.leads ?? 0} leads` } },
        },
      },
    },
  });
}
