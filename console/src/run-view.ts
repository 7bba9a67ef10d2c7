import { api, connectionPath, MAX_RETRIES, type RunSummary, type RunWait } from "./api";
import { h } from "./dom";
import { ranToItsEnd, recordsOf } from "./health";
import { pollWhileRunning } from "./live-poll";
import { liveProgress } from "./live-progress";
import { runFindings } from "./run-findings";
import { failureNote } from "./failure-note";
import { entityWords, statusWords } from "./entity-words";
import { isOwner } from "./session";
import { duration, timeOf } from "./time";
import { titledCard } from "./titled-card";

/** A finished run's outcome, in words. */
const RUN_OUTCOME: Readonly<Record<Exclude<RunSummary["status"], "running">, string>> = { succeeded: "Succeeded", failed: "Failed", cancelled: "Cancelled by the owner" };

/** One line per wait: what the source answered, how long the sync waits, and which retry comes after. */
export function waitLine(entity: string, wait: RunWait): string {
  const cause =
    wait.kind === "throttled"
      ? `your CRM asked the sync to slow down${wait.retry_after_seconds === null ? "" : ` (for ${wait.retry_after_seconds} s)`}`
      : wait.rule === "source.reachable"
        ? "your CRM could not be reached"
        : "your CRM failed to answer (a server error, a time-out or a broken connection)";
  return `${entityWords(entity)}, page ${wait.page}: ${cause}; waiting ${wait.seconds} s, then retry ${wait.attempt} of ${MAX_RETRIES}`;
}

/** One run, watched live while it runs: each entity's status, pages, records, waits and error. Returns a stop function. */
export function runView(outlet: HTMLElement, id: string, runId: string): () => void {
  const heading = h("h1", { tabindex: "-1" }, "Sync run");
  const status = h("p", { class: "run-status", role: "status", "aria-live": "polite" }, "Loading…");
  const body = h("tbody");
  const waits = h("ol", { class: "waits", "aria-label": "Retries and waits" });
  const waitsNote = h("p", { class: "note" }, "None so far.");
  // Shown only while the run is running, and only to the owner (the API answers anyone else 403).
  const cancelStatus = h("p", { role: "status", "aria-live": "polite" });
  const cancelButton = h("button", { type: "button", hidden: true }, "Cancel sync");
  cancelButton.addEventListener("click", async () => {
    cancelButton.disabled = true;
    cancelStatus.textContent = "Cancelling…";
    try {
      const run = await api<RunSummary>("POST", `${connectionPath(id)}/syncs/${encodeURIComponent(runId)}/cancel`);
      cancelStatus.textContent = "Cancelled: what was not finished is marked cancelled. A cancelled run is not a failure: the next run picks up where this one stopped.";
      // The whole view follows: the table, the waits' "so far" gone, the progress closed.
      if (!watch.stopped()) await showAll(run);
    } catch (error) {
      cancelStatus.textContent = (error as Error).message;
      cancelButton.disabled = false;
    }
  });
  const progress = liveProgress();
  const findings = runFindings(id);
  // The last run before this one that ran to its end (not one cancelled): what each entity's progress bar is measured against.
  const previous = api<{ data: RunSummary[] }>("GET", `${connectionPath(id)}/syncs`)
    .then((runs) => runs.data.find((run) => run.id !== runId && ranToItsEnd(run) && run.id < runId) ?? null)
    .catch(() => null);
  outlet.replaceChildren(
    heading,
    status,
    ...(isOwner() ? [cancelButton] : []),
    cancelStatus,
    progress.element,
    h(
      "div",
      { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Entities of this run" },
      h(
        "table",
        { class: "entities" },
        h("caption", null, "Entities in sync order"),
        h("thead", null, h("tr", null, ["Data", "Status", "Pages", "Records", "Waits", "What went wrong"].map((name) => h("th", { scope: "col" }, name)))),
        body,
      ),
    ),
    titledCard(
      { id: "waits-title", title: "Retries and waits" },
      h("p", { class: "note" }, "Each wait before a page is asked again, as the sync starts it: when your CRM asks it to slow down, as long as it asks (at least 1, 2, 4, 8, then 16 s); when it fails to answer, 1, 2, 4, 8, then 16 s."),
      waitsNote,
      // Polite: a screen reader hears each new wait without losing its place.
      h("div", { "aria-live": "polite" }, waits),
    ),
    findings.element,
  );

  const show = (run: RunSummary) => {
    status.replaceChildren(
      ...(run.status === "running"
        ? ["Running since ", timeOf(run.started_at), ` · ${recordsOf(run)} records so far`]
        : [
            `${RUN_OUTCOME[run.status]} · started `,
            timeOf(run.started_at),
            ` · took ${duration(run.started_at, run.finished_at)} · ${recordsOf(run)} records${run.unresolved_won_lost > 0 ? ` · ${run.unresolved_won_lost} leads in a stage that is not known (counted neither won nor lost)` : ""}`,
          ]),
    );
    status.dataset["status"] = run.status;
    cancelButton.hidden = run.status !== "running";
    body.replaceChildren(
      ...run.entities.map((entity) =>
        h(
          "tr",
          { "data-entity": entity.entity },
          h("th", { scope: "row" }, entityWords(entity.entity)),
          h("td", null, h("span", { class: `badge entity-${entity.status}` }, statusWords(entity.status))),
          h("td", null, entity.pages),
          h("td", null, entity.records),
          h("td", null, entity.waits.length),
          h("td", { class: "error-cell" }, entity.failure === null ? (entity.error ?? "") : failureNote(id, entity.entity, entity.failure)),
        ),
      ),
    );
  };

  const showWaits = (run: RunSummary) => {
    const all = run.entities.flatMap((entity) => entity.waits.map((wait) => ({ entity: entity.entity, wait })));
    all.sort((a, b) => a.wait.at.localeCompare(b.wait.at));
    waitsNote.hidden = all.length > 0;
    // A finished run says what happened, not what happened so far.
    waitsNote.textContent = run.status === "running" ? "None so far." : "No retries or waits in this run.";
    // Only new lines are added, so the live region reads out each wait once.
    for (const { entity, wait } of all.slice(waits.children.length)) {
      waits.append(
        h(
          "li",
          { "data-entity": entity, "data-kind": wait.kind },
          h("span", null, waitLine(entity, wait)),
          h("span", { class: "when" }, " · ", timeOf(wait.at)),
          wait.detail ? h("span", { class: "detail" }, ` · ${wait.detail}`) : null,
        ),
      );
    }
  };

  const showAll = async (run: RunSummary) => {
    show(run);
    showWaits(run);
    progress.update(run, await previous);
    findings.update(run);
  };
  const watch = pollWhileRunning(
    () => api<RunSummary>("GET", `${connectionPath(id)}/syncs/${encodeURIComponent(runId)}`),
    showAll,
    (message) => (status.textContent = message),
  );
  return () => watch.stop();
}
