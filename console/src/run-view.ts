import { api, connectionPath, type RunSummary } from "./api";
import { duration, h, when } from "./dom";
import { recordsOf } from "./health";
import { isOwner } from "./session";

/** How often a running run's summary is read again. */
const POLL_MS = 500;

/** One run, watched live while it runs: each entity's status, pages, records and error. Returns a stop function. */
export function runView(outlet: HTMLElement, id: string, runId: string): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const heading = h("h1", { tabindex: "-1" }, "Sync run");
  const status = h("p", { class: "run-status", role: "status", "aria-live": "polite" }, "Loading…");
  const body = h("tbody");
  // Shown only while the run is running, and only to the owner (the API answers anyone else 403).
  const cancelStatus = h("p", { role: "status", "aria-live": "polite" });
  const cancelButton = h("button", { type: "button", hidden: true }, "Cancel sync");
  cancelButton.addEventListener("click", async () => {
    cancelButton.disabled = true;
    cancelStatus.textContent = "Cancelling…";
    try {
      const run = await api<RunSummary>("POST", `${connectionPath(id)}/syncs/${encodeURIComponent(runId)}/cancel`);
      cancelStatus.textContent = "Cancelled: entities not finished failed with \"cancelled by the owner\".";
      if (!stopped) show(run);
    } catch (error) {
      cancelStatus.textContent = (error as Error).message;
      cancelButton.disabled = false;
    }
  });
  outlet.replaceChildren(
    heading,
    h("p", null, h("a", { href: `#/connections/${encodeURIComponent(id)}` }, "← Connection")),
    status,
    ...(isOwner() ? [cancelButton] : []),
    cancelStatus,
    h(
      "div",
      { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Entities of this run" },
      h(
        "table",
        { class: "entities" },
        h("caption", null, "Entities in sync order"),
        h("thead", null, h("tr", null, ["Entity", "Status", "Pages", "Records", "Error"].map((name) => h("th", { scope: "col" }, name)))),
        body,
      ),
    ),
  );

  const show = (run: RunSummary) => {
    status.textContent =
      run.status === "running"
        ? `Running since ${when(run.started_at)} · ${recordsOf(run)} records so far`
        : `${run.status === "succeeded" ? "Succeeded" : "Failed"} · started ${when(run.started_at)} · took ${duration(run.started_at, run.finished_at)} · ${recordsOf(run)} records · ${run.unresolved_won_lost} unresolved won/lost leads`;
    status.dataset["status"] = run.status;
    cancelButton.hidden = run.status !== "running";
    body.replaceChildren(
      ...run.entities.map((entity) =>
        h(
          "tr",
          { "data-entity": entity.entity },
          h("th", { scope: "row" }, entity.entity),
          h("td", null, h("span", { class: `badge entity-${entity.status}` }, entity.status)),
          h("td", null, entity.pages),
          h("td", null, entity.records),
          h("td", { class: "error-cell" }, entity.error ?? ""),
        ),
      ),
    );
  };

  const poll = async () => {
    try {
      const run = await api<RunSummary>("GET", `${connectionPath(id)}/syncs/${encodeURIComponent(runId)}`);
      if (stopped) return;
      show(run);
      if (run.status === "running") timer = setTimeout(() => void poll(), POLL_MS);
    } catch (error) {
      if (!stopped) status.textContent = (error as Error).message;
    }
  };
  void poll();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}
