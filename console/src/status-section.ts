import { api, connectionPath, type RecordCounts, type RunSummary } from "./api";
import { connectionHealth } from "./connection-health";
import type { Frame } from "./connection-frame";
import type { Quality } from "./data-trust-api";
import { h } from "./dom";
import { entityStatusTable } from "./entity-status-table";
import { nextRunOf } from "./health";
import { oldestDataAsOf } from "./overview";
import { problemsCard } from "./problems-card";
import { isOwner } from "./session";
import { timeOf } from "./time";
import { statusWords } from "./entity-words";

const runHref = (id: string, runId: string) => `#/connections/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`;

/**
 * The Status section, first: in one screen, what is wrong and what to do. Health in words and why, data as of, the
 * last and next run, Sync now, what went wrong with its fix, and a line per kind of data.
 */
export async function statusSection(frame: Frame, navigate: (hash: string) => void): Promise<void> {
  const { connection, body } = frame;
  const id = connection.id;
  const loading = h("p", { role: "status", "aria-live": "polite" }, "Loading the runs…");
  const syncStatus = h("p", { role: "status", "aria-live": "polite" });
  const syncButton = h("button", { type: "button", class: "primary" }, "Sync now");
  syncButton.addEventListener("click", async () => {
    syncButton.disabled = true;
    try {
      const run = await api<{ id: string }>("POST", `${connectionPath(id)}/syncs`);
      navigate(runHref(id, run.id));
    } catch (error) {
      syncStatus.textContent = (error as Error).message;
      syncButton.disabled = false;
    }
  });
  // Sync now stays where it is while the rest loads: a keyboard user who reached it keeps their place.
  const facts = h("div", { class: "status-facts" }, loading);
  const rest = h("div");
  body.replaceChildren(h("div", { class: "status-head" }, facts, ...(isOwner() ? [h("div", { class: "actions" }, syncButton), syncStatus] : [])), rest);

  let runs: RunSummary[];
  try {
    runs = (await api<{ data: RunSummary[] }>("GET", `${connectionPath(id)}/syncs`)).data;
  } catch (error) {
    loading.textContent = (error as Error).message;
    return;
  }
  // The counts and the quality only fill their columns: the section stands without them.
  const [counts, quality] = await Promise.all([
    api<RecordCounts>("GET", `${connectionPath(id)}/records`).catch(() => null),
    api<Quality>("GET", `${connectionPath(id)}/quality`).catch(() => null),
  ]);
  const reading = connectionHealth(connection, runs);
  const latest = runs[0];
  const asOf = oldestDataAsOf(connection);
  facts.replaceChildren(
    h(
      "p",
      { class: "health-line", "data-test": "health" },
      h("span", { class: `badge health-${reading.health.replace(" ", "-")}` }, reading.health),
      connection.stale ? [" ", h("span", { class: "badge health-stale" }, "stale")] : null,
      " ",
      h("span", { "data-test": "health-why" }, reading.sentence),
    ),
    h(
      "dl",
      { class: "facts" },
      h("dt", null, "Data as of"),
      h("dd", { "data-test": "freshness" }, asOf === null ? "no data yet" : timeOf(asOf)),
      h("dt", null, "Newest run"),
      h("dd", { "data-test": "last-run" }, latest === undefined ? "none yet" : [h("a", { href: runHref(id, latest.id) }, timeOf(latest.started_at)), ` · ${statusWords(latest.status)}`]),
      h("dt", null, "Next run"),
      h("dd", { "data-test": "next-run" }, nextRunOf(connection)),
    ),
  );
  rest.replaceChildren(
    problemsCard(id, reading.failed) ?? "",
    entityStatusTable(connection, latest, counts, quality),
    h(
      "p",
      { class: "glossary" },
      h("strong", null, "Last complete sync"),
      ": when a run last read every page of that data to its end. ",
      h("strong", null, "Stored"),
      counts === null ? ": records kept, counted at the end of each run." : [": records kept, counted at the end of the run of ", timeOf(counts.computed_at), "."],
    ),
  );
}
