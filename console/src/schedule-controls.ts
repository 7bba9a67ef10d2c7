import { api, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { nextRunOf } from "./health";

/**
 * Pause or resume the connection's schedule. A paused connection is skipped by
 * the scheduled dispatcher; "Sync now" still runs it.
 */
export function scheduleCard(connection: Connection): HTMLElement {
  const state = h("p", { "data-test": "schedule-state" });
  const next = h("p", { "data-test": "next-run" });
  const status = h("p", { role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button" });
  const show = (current: Connection) => {
    state.textContent = current.paused
      ? "Paused: the schedule skips this connection; \"Sync now\" still runs it."
      : "Active: the schedule syncs this connection.";
    button.textContent = current.paused ? "Resume schedule" : "Pause schedule";
    next.textContent = `Next run: ${nextRunOf(current)}`;
  };
  let current = connection;
  show(current);
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "";
    try {
      current = await api<Connection>("POST", `${connectionPath(current.id)}/${current.paused ? "resume" : "pause"}`);
      show(current);
      status.textContent = current.paused ? "Schedule paused." : "Schedule resumed.";
    } catch (error) {
      status.textContent = (error as Error).message;
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card", "aria-labelledby": "schedule-title" }, h("h2", { id: "schedule-title" }, "Schedule"), state, next, button, status);
}
