import type { ChartConfiguration, ChartType } from "chart.js";
import { h, uid } from "./dom";
import "./data-trust.css";

/** Colours with at least 3:1 contrast on white, one per dataset in turn. */
export const SERIES_COLOURS = ["#0b5cad", "#b42318", "#1a7f37", "#8a5a00", "#6639ba", "#0e7490", "#9a3412", "#374151"] as const;

/**
 * A chart and its text alternative: a canvas (an image with a one-line summary
 * for screen readers) and, on demand, the table it was drawn from, behind a
 * button that any keyboard reaches. Chart.js (chart-canvas.ts) sizes the canvas
 * through the CSSOM (`canvas.style.*`), which a CSP without 'unsafe-inline'
 * allows; it writes no style attribute or <style> element.
 */
export function chartFigure<T extends ChartType>(options: {
  /** Names the chart: its caption, and the data-chart attribute tests find it by. */
  readonly name: string;
  readonly caption: string;
  /** What the picture shows, in one sentence: the canvas's accessible name. */
  readonly summary: string;
  readonly config: ChartConfiguration<T>;
  readonly table: HTMLTableElement;
  /** `tall` for a chart with many rows (a funnel of many stages). */
  readonly size?: "short" | "tall";
}): HTMLElement {
  const tableId = uid("chart-table");
  const canvas = h("canvas", { role: "img", "aria-label": options.summary });
  const tableBox = h("div", { class: "table-scroll", id: tableId, hidden: true, tabindex: "0", role: "region", "aria-label": `${options.caption}: table` }, options.table);
  const toggle = h("button", { type: "button", class: "chart-toggle", "aria-expanded": "false", "aria-controls": tableId }, "Show the table");
  toggle.addEventListener("click", () => {
    const open = tableBox.hidden;
    tableBox.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "Hide the table" : "Show the table";
  });
  const figure = h(
    "figure",
    { class: "chart", "data-chart": options.name },
    h("figcaption", null, options.caption),
    h("div", { class: `chart-box ${options.size ?? "short"}` }, canvas),
    toggle,
    tableBox,
  );
  // Chart.js is fetched with the first chart (its own chunk); the figure and its table are usable before it arrives.
  void import("./chart-canvas").then(({ drawChart }) => drawChart(canvas, options.config as unknown as ChartConfiguration));
  return figure;
}

/** A table with a caption, a header row and one row per entry: what every chart's text alternative is built from. */
export function dataTable(caption: string, headers: readonly (Node | string)[], rows: readonly (readonly (Node | string | number)[])[]): HTMLTableElement {
  return h(
    "table",
    { class: "entities" },
    h("caption", null, caption),
    h("thead", null, h("tr", null, headers.map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", null, rows.map(([first, ...rest]) => h("tr", null, h("th", { scope: "row" }, first ?? ""), rest.map((cell) => h("td", null, cell))))),
  );
}

