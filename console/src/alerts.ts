import { api, NOTIFICATIONS, type ConnectionOverview, type Notification } from "./api";
import { h, uid } from "./dom";
import { dashboardOrder, displayName, failedInWords, loadOverview, oldestDataAsOf } from "./overview";
import { timeOf } from "./time";

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * What the header counts: stale connections, connections a required entity of whose last finished run failed (a
 * cancelled run is no failure), and findings new in their last successful run.
 */
export function alertCounts(connections: readonly ConnectionOverview[]) {
  return {
    stale: connections.filter((connection) => connection.stale).length,
    failed: connections.filter((connection) => connection.health.failed_entities.length > 0).length,
    newFindings: connections.reduce((sum, connection) => sum + (connection.open_findings?.new ?? 0), 0),
  };
}

/**
 * The header's alerts: a disclosure button that says what needs a look, and behind it the connections concerned and
 * the workspace's notifications (read when opened). The panel follows the button, so Tab reaches it; Escape closes it.
 */
export function alertsControl(): HTMLElement {
  const panelId = uid("alerts");
  const button = h("button", { type: "button", class: "alerts-button", "aria-expanded": "false", "aria-controls": panelId }, "Alerts…");
  const concerned = h("ul", { class: "alert-list", "aria-label": "Connections that need attention" });
  const notifications = h("ol", { class: "notifications", "aria-label": "Notifications" });
  const notificationsStatus = h("p", { role: "status", "aria-live": "polite" });
  const panel = h(
    "section",
    { id: panelId, class: "alerts-panel", hidden: true, "aria-label": "Alerts and notifications" },
    h("h2", null, "Needs attention"),
    concerned,
    h("h2", null, "Notifications"),
    notificationsStatus,
    notifications,
  );
  let names = new Map<string, string>();
  let loaded = false;

  const close = () => {
    panel.hidden = true;
    button.setAttribute("aria-expanded", "false");
  };
  button.addEventListener("click", () => {
    const open = panel.hidden;
    panel.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open && !loaded) {
      loaded = true;
      void showNotifications();
    }
  });
  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    close();
    button.focus();
  });
  button.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) close();
  });

  const showNotifications = async () => {
    notificationsStatus.textContent = "Loading notifications…";
    try {
      const { data } = await api<{ data: Notification[] }>("GET", NOTIFICATIONS);
      notificationsStatus.textContent = data.length === 0 ? "No notifications yet." : "";
      notifications.replaceChildren(...data.map((notification) => notificationItem(notification, names.get(notification.connection_id))));
    } catch (error) {
      notificationsStatus.textContent = (error as Error).message;
    }
  };

  void loadOverview().then(
    (connections) => {
      names = new Map(connections.map((connection) => [connection.id, displayName(connection)]));
      const counts = alertCounts(connections);
      const parts = [
        counts.stale > 0 ? `${counts.stale} stale` : "",
        counts.failed > 0 ? plural(counts.failed, "failed run") : "",
        counts.newFindings > 0 ? plural(counts.newFindings, "new finding") : "",
      ].filter(Boolean);
      button.textContent = parts.length === 0 ? "Alerts: none" : `Alerts: ${parts.join(" · ")}`;
      button.classList.toggle("has-alerts", parts.length > 0);
      const items = dashboardOrder(connections).flatMap((connection) => concernOf(connection));
      concerned.replaceChildren(...(items.length === 0 ? [h("li", null, "Every connection is fresh, its last run succeeded, and no finding is new.")] : items));
    },
    () => {
      button.textContent = "Alerts: unknown";
    },
  );

  return h("div", { class: "alerts" }, button, panel);
}

/** One line per reason a connection needs a look, linking to where it shows. */
function concernOf(connection: ConnectionOverview): HTMLElement[] {
  const path = `#/connections/${encodeURIComponent(connection.id)}`;
  const name = displayName(connection);
  const lines: HTMLElement[] = [];
  if (connection.stale) {
    const asOf = oldestDataAsOf(connection);
    lines.push(h("li", { "data-alert": "stale" }, h("a", { href: path }, name), ": stale, ", asOf === null ? "no data yet" : ["data as of ", timeOf(asOf)]));
  }
  const failedRun = connection.health.run_id;
  const failed = failedInWords(connection);
  if (failedRun !== null && failed !== null) {
    lines.push(
      h("li", { "data-alert": "failed" }, h("a", { href: `${path}/runs/${encodeURIComponent(failedRun)}` }, name), `: ${failed[0]!.toLowerCase()}${failed.slice(1)}`),
    );
  }
  const findings = connection.open_findings;
  if (findings !== null && findings.new > 0) {
    lines.push(h("li", { "data-alert": "findings" }, h("a", { href: `${path}/quality` }, name), `: ${plural(findings.new, "new finding")} in its last run`));
  }
  return lines;
}

function notificationItem(notification: Notification, name: string | undefined): HTMLElement {
  const path = `#/connections/${encodeURIComponent(notification.connection_id)}`;
  const detail = notification.detail;
  const subject = h("a", { href: path }, name ?? notification.connection_id);
  let what: (Node | string)[];
  if (notification.detail_type === "Sync Run Finished") {
    const runId = String(detail["run_id"] ?? "");
    what = [": ", h("a", { href: `${path}/runs/${encodeURIComponent(runId)}` }, `sync ${String(detail["status"] ?? "finished")}`)];
  } else if (notification.detail_type === "Audit Finished") {
    const healed = (detail["healed"] ?? {}) as Record<string, number>;
    const total = Object.values(healed).reduce((sum, count) => sum + (typeof count === "number" ? count : 0), 0);
    what = [": ", h("a", { href: `${path}/audits/${encodeURIComponent(String(detail["audit_id"] ?? ""))}` }, `audit ${String(detail["status"] ?? "finished")}`), `, ${plural(total, "record")} healed`];
  } else {
    const entities = Array.isArray(detail["stale_entities"]) ? (detail["stale_entities"] as { entity?: string }[]).map((entry) => entry.entity).join(", ") : "";
    what = [`: data stale${entities ? ` (${entities})` : ""}`];
  }
  return h("li", { "data-type": notification.detail_type }, timeOf(notification.at), " · ", subject, ...what);
}
