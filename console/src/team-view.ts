import { ApiError } from "./api";
import { chartFigure, dataTable, SERIES_COLOURS } from "./chart-figure";
import { h } from "./dom";
import { computedLine, figuresFacts, leadsCard, periodForm, signalsCard } from "./manager-figures-view";
import { figuresOf, format, listAnalyticsConnections, rowName, type AnalyticsConnection, type FiguresList, type ManagerFigures, type Period } from "./team-api";
import "./team.css";

/** A row's key in a route: the user's id, or `~` for the records with no manager (no user id can be `~`... shown in words anyway). */
export const UNASSIGNED_ROUTE_KEY = "~";
const keyOf = (row: ManagerFigures) => row.user?.id ?? UNASSIGNED_ROUTE_KEY;
const managerHref = (connectionId: string, row: ManagerFigures) => `#/team/${encodeURIComponent(connectionId)}/managers/${encodeURIComponent(keyOf(row))}`;

/** The connection a member looks at: the one in the route, else the first; a picker when there are several. */
async function chooseConnection(outlet: HTMLElement, title: string, routeId: string | undefined, hrefOf: (id: string) => string, navigate: (hash: string) => void) {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, title), status);
  let connections: AnalyticsConnection[];
  try {
    connections = await listAnalyticsConnections();
  } catch (error) {
    status.textContent = (error as Error).message;
    return null;
  }
  // Another route rendered while the list loaded: this page is gone, and must not take the outlet back.
  if (!outlet.contains(status)) return null;
  if (connections.length === 0) {
    status.textContent = "No CRM is connected to this workspace yet. The workspace owner connects one; its figures show here after its first sync.";
    return null;
  }
  const chosen = connections.find((connection) => connection.id === routeId) ?? connections[0]!;
  status.textContent = "";
  const picker =
    connections.length < 2
      ? null
      : h(
          "div",
          { class: "field" },
          h("label", { for: "connection-picker" }, "CRM connection"),
          h(
            "select",
            { id: "connection-picker", onchange: (event: Event) => navigate(hrefOf((event.target as HTMLSelectElement).value)) },
            connections.map((connection) => h("option", { value: connection.id, selected: connection.id === chosen.id }, connection.name ?? connection.id)),
          ),
        );
  return { connection: chosen, picker, status };
}

/** The Team page (owner and ROP): every manager side by side, a chart of won revenue and conversion; each row opens its manager. */
export async function teamView(outlet: HTMLElement, routeId: string | undefined, navigate: (hash: string) => void): Promise<void> {
  const chosen = await chooseConnection(outlet, "Team", routeId, (id) => `#/team/${encodeURIComponent(id)}`, navigate);
  if (chosen === null) return;
  const { connection, picker, status } = chosen;
  const body = h("div");
  const show = async (period: Period | null) => {
    status.textContent = "Loading the figures…";
    let list: FiguresList;
    try {
      list = await figuresOf(connection.id, period);
    } catch (error) {
      status.textContent = error instanceof ApiError && error.field ? `${error.message}` : (error as Error).message;
      return;
    }
    status.textContent = `${list.rows.length} manager${list.rows.length === 1 ? "" : "s"} from ${list.period.from} to ${list.period.to} (UTC).`;
    body.replaceChildren(
      periodForm(list.period, (next) => void show(next)),
      computedLine(list),
      ...(list.rows.length === 0 ? [h("p", null, "No manager owns a lead, task or call yet.")] : [teamChart(list), teamTable(connection.id, list)]),
    );
  };
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, "Team"), h("p", { class: "secondary" }, connection.name ?? connection.id), picker ?? "", status, body);
  await show(null);
}

function teamTable(connectionId: string, list: FiguresList): HTMLElement {
  const headers = ["Manager", "Open leads", "Created", "Won", "Lost", "Conversion", "Revenue won", "Average won deal", "Median days to won", "Open tasks", "Overdue tasks", "Completed by due time", "Calls", "Connected", "Things to act on"];
  return h(
    "div",
    { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Managers side by side" },
    h(
      "table",
      { class: "entities team-table" },
      h("caption", null, `Managers, ${list.period.from} to ${list.period.to} (UTC)`),
      h("thead", null, h("tr", null, headers.map((name) => h("th", { scope: "col" }, name)))),
      h(
        "tbody",
        null,
        list.rows.map((row) =>
          h(
            "tr",
            { "data-manager": row.user?.id ?? "" },
            h("th", { scope: "row" }, h("a", { href: managerHref(connectionId, row) }, rowName(row)), row.user !== null && !row.user.is_active ? [" ", h("span", { class: "badge inactive" }, "inactive")] : null),
            [
              row.leads.open, row.leads.created, row.leads.won, row.leads.lost, format.percent(row.leads.conversion), format.whole(row.leads.revenue_won),
              format.whole(row.leads.average_won_deal), row.leads.median_days_to_won ?? "—", row.tasks.open, row.tasks.overdue,
              format.percent(row.tasks.completed_by_due), row.calls.total, row.calls.connected, row.signals.reduce((sum, signal) => sum + signal.count, 0),
            ].map((cell) => h("td", null, typeof cell === "number" ? cell.toLocaleString("en-US") : cell)),
          ),
        ),
      ),
    ),
  );
}

/** Won revenue (bars) and conversion (line, right axis) per manager; its table is the text alternative. */
function teamChart(list: FiguresList): HTMLElement {
  const rows = list.rows;
  const labels = rows.map(rowName);
  return chartFigure({
    name: "team",
    caption: `Revenue won and conversion per manager, ${list.period.from} to ${list.period.to}`,
    summary: `Bar chart of revenue won and line chart of conversion for ${rows.length} managers: ${rows.map((row) => `${rowName(row)} ${format.whole(row.leads.revenue_won)}, ${format.percent(row.leads.conversion)}`).join("; ")}.`,
    table: dataTable("Revenue won and conversion per manager", ["Manager", "Revenue won", "Conversion"], rows.map((row) => [rowName(row), format.whole(row.leads.revenue_won), format.percent(row.leads.conversion)])),
    size: rows.length > 8 ? "tall" : "short",
    config: {
      type: "bar",
      data: {
        labels,
        datasets: [
          { type: "bar", label: "Revenue won", data: rows.map((row) => Number(row.leads.revenue_won)), backgroundColor: SERIES_COLOURS[0], yAxisID: "revenue", order: 2 },
          { type: "line", label: "Conversion (%)", data: rows.map((row) => (row.leads.conversion === null ? null : Math.round(row.leads.conversion * 100))), borderColor: SERIES_COLOURS[1], backgroundColor: SERIES_COLOURS[1], yAxisID: "conversion", order: 1 },
        ],
      },
      options: {
        scales: {
          revenue: { type: "linear", position: "left", beginAtZero: true, title: { display: true, text: "revenue won" } },
          conversion: { type: "linear", position: "right", min: 0, max: 100, grid: { drawOnChartArea: false }, title: { display: true, text: "conversion %" } },
        },
      },
    },
  });
}

/** One manager's page for the owner and ROP: their figures, signals and leads. */
export async function managerView(outlet: HTMLElement, connectionId: string, key: string): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading the figures…");
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, "Manager"), status);
  const body = h("div");
  const show = async (period: Period | null) => {
    let list: FiguresList;
    try {
      list = await figuresOf(connectionId, period);
    } catch (error) {
      status.textContent = (error as Error).message;
      return;
    }
    const row = list.rows.find((candidate) => keyOf(candidate) === key);
    if (row === undefined) {
      status.textContent = "This manager owns no lead, task or call of this connection.";
      return;
    }
    status.textContent = "";
    heading.textContent = rowName(row);
    body.replaceChildren(
      row.user !== null && !row.user.is_active ? h("p", { class: "note" }, "This user is inactive in the CRM.") : "",
      periodForm(list.period, (next) => void show(next)),
      computedLine(list),
      signalsCard(row),
      figuresFacts(row),
      leadsCard(connectionId, row.user?.id ?? null),
    );
  };
  const heading = h("h1", { tabindex: "-1" }, "Manager");
  outlet.replaceChildren(heading, h("p", null, h("a", { href: `#/team/${encodeURIComponent(connectionId)}` }, "← Team")), status, body);
  await show(null);
}

/** My figures (MOP): the row of the CRM user the owner linked them to, their signals and their leads. */
export async function myFiguresView(outlet: HTMLElement, routeId: string | undefined, navigate: (hash: string) => void): Promise<void> {
  const chosen = await chooseConnection(outlet, "My figures", routeId, (id) => `#/my/${encodeURIComponent(id)}`, navigate);
  if (chosen === null) return;
  const { connection, picker, status } = chosen;
  const body = h("div");
  const show = async (period: Period | null) => {
    let list: FiguresList;
    try {
      list = await figuresOf(connection.id, period);
    } catch (error) {
      // 403: linked to no one yet. The API's sentence says to ask the owner.
      status.textContent = (error as Error).message;
      body.replaceChildren();
      return;
    }
    const row = list.rows[0];
    status.textContent = row === undefined ? "No figures yet." : `${rowName(row)}, from ${list.period.from} to ${list.period.to} (UTC).`;
    if (row === undefined) return;
    body.replaceChildren(periodForm(list.period, (next) => void show(next)), computedLine(list), signalsCard(row), figuresFacts(row), leadsCard(connection.id, undefined));
  };
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, "My figures"), h("p", { class: "secondary" }, connection.name ?? connection.id), picker ?? "", status, body);
  await show(null);
}
