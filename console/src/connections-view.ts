import { api, ApiError, CONNECTIONS, connectionPath, type Connection, type RunSummary } from "./api";
import { duration, h, when } from "./dom";
import { healthOf, nextRunOf, recordsOf } from "./health";
import { readOnlyNote } from "./read-only-note";
import { isOwner } from "./session";

/** The list: base URL, rate, health and last run of every connection of the workspace. */
export async function connectionsView(outlet: HTMLElement): Promise<void> {
  const list = h("ul", { class: "cards", "aria-label": "Connections" });
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading connections…");
  outlet.replaceChildren(
    h(
      "div",
      { class: "heading-row" },
      h("h1", { tabindex: "-1" }, "CRM connections"),
      isOwner() ? h("a", { class: "button primary", href: "#/connections/new" }, "New connection") : null,
    ),
    readOnlyNote() ?? "",
    status,
    list,
  );

  let connections: readonly Connection[];
  try {
    connections = (await api<{ data: Connection[] }>("GET", CONNECTIONS)).data;
  } catch (error) {
    status.textContent = error instanceof ApiError && error.status === 403 ? `The API answered 403: ${error.message}` : String((error as Error).message);
    return;
  }
  status.textContent = connections.length === 0 ? "No connections yet." : `${connections.length} connection${connections.length === 1 ? "" : "s"}.`;
  for (const connection of connections) {
    const health = h("span", { class: "badge" }, "…");
    const lastRun = h("dd", null, "…");
    list.append(
      h(
        "li",
        { class: "card" },
        h("h2", null, h("a", { href: `#/connections/${encodeURIComponent(connection.id)}` }, connection.base_url)),
        h(
          "dl",
          { class: "facts" },
          h("dt", null, "Health"),
          h("dd", null, health),
          h("dt", null, "Rate"),
          h("dd", null, `${connection.rate_limit} requests/s`),
          h("dt", null, "Last run"),
          lastRun,
          h("dt", null, "Next run"),
          h("dd", null, nextRunOf(connection)),
        ),
      ),
    );
    void api<{ data: RunSummary[] }>("GET", `${connectionPath(connection.id)}/syncs`).then(
      ({ data }) => {
        const latest = data[0];
        const state = healthOf(latest, connection.paused);
        health.textContent = state;
        health.className = `badge health-${state.replace(" ", "-")}`;
        lastRun.textContent = latest
          ? `${when(latest.started_at)} · ${duration(latest.started_at, latest.finished_at)} · ${recordsOf(latest)} records`
          : "never";
      },
      () => {
        health.textContent = "unknown";
      },
    );
  }
}
