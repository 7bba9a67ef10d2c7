import { api, COLLECTIONS, connectionPath, type Connection, type RunSummary, type TestResult } from "./api";
import { h } from "./dom";
import { editConnectionForm, rotateTokenForm } from "./connection-form";
import { healthOf, nextRunOf, ranToItsEnd, recordsOf } from "./health";
import { preflightCard } from "./preflight-card";
import { resetForm } from "./reset-form";
import { scheduleCard } from "./schedule-controls";
import { readOnlyNote } from "./read-only-note";
import { managersCard } from "./managers-card";
import { runsChart } from "./runs-chart";
import { failureNote } from "./failure-note";
import { isOwner } from "./session";
import { duration, timeOf, utcDay } from "./time";

const yesNo = (value: boolean) => (value ? "yes" : "no");

/** One connection: its facts, the live test, settings, token rotation, sync now, run history and its records. */
export async function connectionView(outlet: HTMLElement, id: string, navigate: (hash: string) => void): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, "Connection"), readOnlyNote() ?? "", status);
  let connection: Connection;
  try {
    connection = await api<Connection>("GET", connectionPath(id));
  } catch (error) {
    status.textContent = (error as Error).message;
    return;
  }
  status.textContent = "";

  const facts = h("dl", { class: "facts" });
  // The heading is the name (the URL under it), else the URL: a rename in the settings shows at once.
  const heading = h("h1", { tabindex: "-1" });
  const urlLine = h("p", { class: "secondary" });
  const showFacts = (current: Connection) => {
    heading.textContent = current.name ?? current.base_url;
    urlLine.textContent = current.base_url;
    urlLine.hidden = current.name === null;
    facts.replaceChildren(
      h("dt", null, "Name"),
      h("dd", { "data-test": "name" }, current.name ?? "—"),
      h("dt", null, "Base URL"),
      h("dd", null, current.base_url),
      h("dt", null, "Rate"),
      h("dd", null, `${current.rate_limit} requests/s`),
      h("dt", null, "Start date"),
      h("dd", null, utcDay(current.sync_since)),
      h("dt", null, "Updated"),
      h("dd", null, timeOf(current.updated_at)),
      h("dt", null, "Next run"),
      h("dd", { "data-test": "next-run" }, nextRunOf(current)),
    );
  };
  showFacts(connection);

  const testResult = h("div", { class: "test-result", role: "status", "aria-live": "polite" });
  const testButton = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        testButton.disabled = true;
        testResult.replaceChildren(h("p", null, "Calling your CRM…"));
        try {
          const result = await api<TestResult>("POST", `${connectionPath(id)}/test`);
          const ok = result.reachable && result.authenticated;
          testResult.replaceChildren(
            h("p", { class: ok ? "ok" : "bad" }, ok ? "The CRM answered and accepted the token." : "The test call did not succeed."),
            h(
              "dl",
              { class: "facts", "aria-label": "Test result" },
              h("dt", null, "Reachable"),
              h("dd", { "data-test": "reachable" }, yesNo(result.reachable)),
              h("dt", null, "Authenticated"),
              h("dd", { "data-test": "authenticated" }, yesNo(result.authenticated)),
              h("dt", null, "Detail"),
              h("dd", { "data-test": "detail" }, result.detail),
              h("dt", null, "Pipelines found"),
              h("dd", { "data-test": "pipelines-found" }, result.pipelines_found ?? "—"),
            ),
          );
        } catch (error) {
          testResult.replaceChildren(h("p", { class: "bad" }, (error as Error).message));
        } finally {
          testButton.disabled = false;
        }
      },
    },
    "Test connection",
  );

  const syncStatus = h("p", { role: "status", "aria-live": "polite" });
  const syncButton = h(
    "button",
    {
      type: "button",
      class: "primary",
      onclick: async () => {
        syncButton.disabled = true;
        try {
          const run = await api<{ id: string }>("POST", `${connectionPath(id)}/syncs`);
          navigate(`#/connections/${encodeURIComponent(id)}/runs/${encodeURIComponent(run.id)}`);
        } catch (error) {
          syncStatus.textContent = (error as Error).message;
          syncButton.disabled = false;
        }
      },
    },
    "Sync now",
  );

  const history = h("ul", { class: "runs", "aria-label": "Run history" }, h("li", null, "Loading runs…"));
  // Why the last finished run's entities failed, each with its rule and fix: shown only when some did.
  const failures = h("ul", { class: "failures", "aria-label": "Failed entities of the last run" });
  const failuresCard = h(
    "section",
    { class: "card", "aria-labelledby": "failures-title", hidden: true },
    h("h2", { id: "failures-title" }, "What failed in the last run"),
    failures,
  );
  outlet.replaceChildren(
    heading,
    urlLine,
    h("p", null, h("a", { href: "#/connections" }, "← All connections")),
    h("section", { class: "card", "aria-labelledby": "facts-title" }, h("h2", { id: "facts-title" }, "Connection"), facts),
    h(
      "section",
      { class: "card", "aria-labelledby": "test-title" },
      h("h2", { id: "test-title" }, "Test"),
      h("p", null, "Asks your CRM for the first page of pipelines with the stored token."),
      testButton,
      testResult,
    ),
    // The API answers the check to the owner only.
    ...(isOwner() ? [preflightCard(id)] : []),
    h("section", { class: "card", "aria-labelledby": "sync-title" }, h("h2", { id: "sync-title" }, "Sync"), syncButton, syncStatus),
    ...(isOwner() ? [scheduleCard(connection, showFacts), resetForm(id, navigate)] : []),
    editConnectionForm(connection, showFacts),
    ...(isOwner() ? [managersCard(connection)] : []),
    rotateTokenForm(connection),
    failuresCard,
    h("section", { class: "card", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "Run history"), history),
    h(
      "nav",
      { class: "card", "aria-labelledby": "records-title" },
      h("h2", { id: "records-title" }, "Records"),
      h("ul", { class: "chips" }, COLLECTIONS.map((entity) => h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/records/${entity}` }, entity)))),
      h("p", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/funnel` }, "Funnel: leads per stage, won, lost, revenue")),
      h(
        "ul",
        { class: "chips", "aria-label": "Data trust" },
        h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/quality` }, "Data quality")),
        h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/explain` }, "Explain a record")),
        h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/audits` }, "Audits")),
      ),
    ),
  );
  // Every write control is the owner's; the API would answer anyone else 403.
  if (!isOwner()) outlet.querySelectorAll("form, button").forEach((control) => control.remove());
  // The page is usable now: keyboard users start at its heading, not after the history has loaded.
  outlet.querySelector<HTMLElement>("h1")?.focus();

  try {
    const runs = (await api<{ data: RunSummary[] }>("GET", `${connectionPath(id)}/syncs`)).data;
    history.replaceChildren(
      ...(runs.length === 0
        ? [h("li", null, "No runs yet.")]
        : runs.map((run) =>
            h(
              "li",
              null,
              h("a", { href: `#/connections/${encodeURIComponent(id)}/runs/${encodeURIComponent(run.id)}` }, timeOf(run.started_at)),
              " ",
              h("span", { class: `badge health-${healthOf(run).replace(" ", "-")}` }, run.status),
              ` · ${duration(run.started_at, run.finished_at)} · ${recordsOf(run)} records`,
              run.entities.some((entity) => entity.status === "failed")
                ? ` · failed: ${run.entities.filter((entity) => entity.status === "failed").map((entity) => entity.entity).join(", ")}`
                : "",
            ),
          )),
    );
    if (runs.length > 0) history.after(runsChart(id, runs));
    showFailures(failuresCard, failures, id, runs);
  } catch (error) {
    history.replaceChildren(h("li", null, (error as Error).message));
  }
}

/** The failed entities of the newest run that ran to its end, a cancelled one aside (stages left out when its pipelines failed too). */
function showFailures(card: HTMLElement, list: HTMLElement, id: string, runs: readonly RunSummary[]): void {
  const last = runs.find(ranToItsEnd);
  const failed = (last?.entities ?? []).filter((entity) => entity.failure !== null);
  const shown = failed.filter((entity) => !(entity.entity === "stages" && failed.some((other) => other.entity === "pipelines")));
  card.hidden = shown.length === 0;
  list.replaceChildren(...shown.map((entity) => h("li", { "data-entity": entity.entity }, h("h3", null, entity.entity), failureNote(id, entity.entity, entity.failure!))));
}
