import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from "chart.js";

/*
 * Chart.js, loaded only when a screen draws a chart (chart-figure.ts imports
 * this module dynamically): the sign-in and list screens never fetch it.
 */

/** Marks a canvas `data-drawn` once Chart.js has painted it: the page's state says the picture is there (tests wait on it). */
const markDrawn = {
  id: "markDrawn",
  afterRender(chart: Chart): void {
    chart.canvas.dataset["drawn"] = "true";
  },
};

// Only the pieces the console draws with, so the chunk carries no other chart type.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend, markDrawn);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
Chart.defaults.color = "#1b1f24";
// No animation: a chart is drawn once, at once, and screenshots and tests see its final state.
Chart.defaults.animation = false;

/** Draws `config` on `canvas`, sized by its box. Chart.js waits for a detached canvas to be attached (it observes the page). */
export function drawChart(canvas: HTMLCanvasElement, config: ChartConfiguration): void {
  forgetDetachedCharts();
  new Chart(canvas, { ...config, options: { responsive: true, maintainAspectRatio: false, ...config.options } });
}

const seenInPage = new WeakSet<Chart>();

/**
 * The views replace the page's content without telling the charts: a chart whose canvas has been in the page and has
 * left it lets go of its observers. One not attached yet (a view still building its cards) is kept.
 */
function forgetDetachedCharts(): void {
  for (const chart of Object.values(Chart.instances)) {
    if (chart.canvas.isConnected) seenInPage.add(chart);
    else if (seenInPage.has(chart)) chart.destroy();
  }
}
