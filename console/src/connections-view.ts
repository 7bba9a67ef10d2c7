import { ApiError, type ConnectionOverview } from "./api";
import { h } from "./dom";
import { nextRunOf } from "./health";
import { dashboardOrder, displayName, failedInWords, healthOfOverview, loadOverview, needsAttention, oldestDataAsOf } from "./overview";
import { readOnlyNote } from "./read-only-note";
import { isOwner } from "./session";
import { duration, timeOf } from "./time";

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The dashboard: per connection its health, freshness, last run, open findings and next run; stale and failing first. */
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

  let connections: readonly ConnectionOverview[];
  try {
    connections = await loadOverview();
  } catch (error) {
    status.textContent = error instanceof ApiError && error.status === 403 ? "The service shows the connections to the workspace owner only." : String((error as Error).message);
    return;
  }
  const attention = connections.filter(needsAttention).length;
  status.textContent =
    connections.length === 0
      ? "No connections yet."
      : `${plural(connections.length, "connection")}.${attention > 0 ? ` ${attention} need${attention === 1 ? "s" : ""} attention: listed first.` : ""}`;
  list.replaceChildren(...dashboardOrder(connections).map(connectionCard));
}

function connectionCard(connection: ConnectionOverview): HTMLElement {
  const path = `#/connections/${encodeURIComponent(connection.id)}`;
  const health = healthOfOverview(connection);
  const failed = failedInWords(connection);
  const asOf = oldestDataAsOf(connection);
  const run = connection.last_run;
  const findings = connection.open_findings;
  return h(
    "li",
    { class: `card${needsAttention(connection) ? " attention" : ""}`, "data-connection": connection.id },
    h("h2", null, h("a", { href: path }, displayName(connection))),
    connection.name === null ? null : h("p", { class: "secondary" }, connection.base_url),
    h(
      "dl",
      { class: "facts" },
      h("dt", null, "Health"),
      h(
        "dd",
        { "data-test": "health" },
        h("span", { class: `badge health-${health.replace(" ", "-")}` }, health),
        connection.stale ? [" ", h("span", { class: "badge health-stale" }, "stale")] : null,
        failed === null ? null : h("span", { class: "health-why", "data-test": "failed-entities" }, ` · ${failed}`),
      ),
      h("dt", null, "Data as of"),
      h(
        "dd",
        { "data-test": "freshness" },
        asOf === null ? "no data yet" : timeOf(asOf),
        connection.stale && connection.freshness_hours !== null ? ` · older than ${plural(connection.freshness_hours, "hour")}` : "",
      ),
      h("dt", null, "Last run"),
      h(
        "dd",
        { "data-test": "last-run" },
        run === null
          ? "never"
          : [
              h("a", { href: `${path}/runs/${encodeURIComponent(run.id)}` }, timeOf(run.started_at)),
              ` · ${run.status} · ${duration(run.started_at, run.finished_at)} · ${plural(run.records, "record")}`,
              run.failed_entities.length > 0 ? ` · failed: ${run.failed_entities.join(", ")}` : "",
            ],
      ),
      h("dt", null, "Findings"),
      h(
        "dd",
        { "data-test": "findings" },
        findings === null
          ? "no successful run yet"
          : findings.findings === 0
            ? "none open"
            : h(
                "a",
                { href: `${path}/quality` },
                `${plural(findings.findings, "open finding")} (${plural(findings.errors, "error")}${findings.new > 0 ? `, ${findings.new} new` : ""}) · ${plural(findings.records, "record")}`,
              ),
      ),
      h("dt", null, "Next run"),
      h("dd", { "data-test": "next-run" }, nextRunOf(connection)),
      h("dt", null, "Rate"),
      h("dd", null, `${connection.rate_limit} requests/s`),
    ),
  );
}
