import { api, connectionPath, type RunSummary } from "./api";
import type { Frame } from "./connection-frame";
import { h } from "./dom";
import { entityList, statusWords } from "./entity-words";
import { healthOf, recordsOf } from "./health";
import { runsChart } from "./runs-chart";
import { duration, timeOf } from "./time";

/** The Runs section: records and duration per run drawn, and every run the API keeps in a table, newest first. */
export async function runsSection(frame: Frame): Promise<void> {
  const { connection, body } = frame;
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading the runs…");
  body.replaceChildren(h("h2", null, "Run history"), status);
  let runs: RunSummary[];
  try {
    runs = (await api<{ data: RunSummary[] }>("GET", `${connectionPath(connection.id)}/syncs`)).data;
  } catch (error) {
    status.textContent = (error as Error).message;
    return;
  }
  status.textContent = runs.length === 0 ? "No runs yet." : `The last ${runs.length === 1 ? "run" : `${runs.length} runs`}, newest first.`;
  if (runs.length === 0) return;
  const href = (run: RunSummary) => `#/connections/${encodeURIComponent(connection.id)}/runs/${encodeURIComponent(run.id)}`;
  body.append(
    runsChart(connection.id, runs),
    h(
      "div",
      { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Runs" },
      h(
        "table",
        { class: "entities", "data-test": "run-history" },
        h("caption", null, "Runs, newest first"),
        h("thead", null, h("tr", null, ["Started", "Outcome", "Took", "Records", "What failed"].map((name) => h("th", { scope: "col" }, name)))),
        h(
          "tbody",
          null,
          runs.map((run) => {
            const failed = run.entities.filter((entity) => entity.status === "failed").map((entity) => entity.entity);
            return h(
              "tr",
              { "data-run": run.id },
              h("th", { scope: "row" }, h("a", { href: href(run) }, timeOf(run.started_at))),
              h("td", null, h("span", { class: `badge health-${healthOf(run).replace(" ", "-")}` }, statusWords(run.status))),
              h("td", null, duration(run.started_at, run.finished_at)),
              h("td", { class: "number" }, recordsOf(run).toLocaleString("en-US")),
              h("td", null, failed.length === 0 ? "" : entityList(failed)),
            );
          }),
        ),
      ),
    ),
  );
}
