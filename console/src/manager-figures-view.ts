import { h } from "./dom";
import { format, managerRecords, type FiguresList, type ManagerFigures, type Period } from "./team-api";
import { timeOf } from "./time";
import { titledCard } from "./titled-card";

/** One manager's figures as facts, in words: what is open now, what happened in the period. */
export function figuresFacts(row: ManagerFigures): HTMLElement {
  // Each card: its heading and its facts, [label, value, test id].
  const cards: readonly (readonly [string, string, readonly (readonly [string, string | number, string])[]])[] = [
    ["leads-title", "Leads", [
      ["Open now", row.leads.open, "leads-open"],
      ["Created in the period", row.leads.created, "leads-created"],
      ["Won", row.leads.won, "leads-won"],
      ["Lost", row.leads.lost, "leads-lost"],
      ["Conversion (won of won and lost)", format.percent(row.leads.conversion), "conversion"],
      ["Revenue won", format.whole(row.leads.revenue_won), "revenue-won"],
      ["Average won deal", format.whole(row.leads.average_won_deal), "average-won-deal"],
      ["Median time from created to won", format.days(row.leads.median_days_to_won), "median-days"],
    ]],
    ["tasks-title", "Tasks", [
      ["Open now", row.tasks.open, "tasks-open"],
      ["Overdue now", row.tasks.overdue, "tasks-overdue"],
      ["Completed in the period", row.tasks.completed, "tasks-completed"],
      ["Completed by their due time", format.percent(row.tasks.completed_by_due), "completed-by-due"],
    ]],
    ["calls-title", "Calls in the period", [
      ["All", row.calls.total, "calls-total"],
      ["Inbound", row.calls.inbound, "calls-inbound"],
      ["Outbound", row.calls.outbound, "calls-outbound"],
      ["Connected", row.calls.connected, "calls-connected"],
      ["Talk time", format.minutes(row.calls.talk_seconds), "talk-time"],
    ]],
  ];
  return h(
    "div",
    { class: "figures-grid" },
    cards.map(([id, title, facts]) =>
      titledCard(
        { id, title },
        h("dl", { class: "facts" }, facts.flatMap(([label, value, test]) => [h("dt", null, label), h("dd", { "data-test": test }, typeof value === "number" ? value.toLocaleString("en-US") : value)])),
      ),
    ),
  );
}

/** What to act on: each signal's sentence, what to do, and a few of the records behind it. */
export function signalsCard(row: ManagerFigures): HTMLElement {
  return titledCard(
    { id: "signals-title", title: "What to act on" },
    row.signals.length === 0
      ? h("p", { "data-test": "no-signals" }, "Nothing to act on: no idle lead, no overdue task, every open lead has a next step, and calls connect.")
      : h(
          "ul",
          { class: "findings signals" },
          row.signals.map((signal) =>
            h(
              "li",
              { "data-signal": signal.rule },
              h("p", { class: "finding-detail" }, h("strong", null, signal.message)),
              h("p", { class: "fix" }, signal.advice),
              signal.sample_ids.length > 0 ? h("p", { class: "hint" }, "For example: ", signal.sample_ids.join(", ")) : null,
            ),
          ),
        ),
  );
}

/** The period form: two UTC days, both included; `show` reloads the figures for them. */
export function periodForm(current: FiguresList["period"], show: (period: Period) => void): HTMLElement {
  const from = h("input", { id: "period-from", name: "from", type: "date", value: current.from, required: true });
  const to = h("input", { id: "period-to", name: "to", type: "date", value: current.to, required: true });
  return h(
    "form",
    {
      class: "card period-form",
      "aria-labelledby": "period-title",
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        if (from.value !== "" && to.value !== "") show({ from: from.value, to: to.value });
      },
    },
    h("h2", { id: "period-title" }, "Period"),
    h("p", { class: "hint", id: "period-hint" }, "Whole days in UTC, both included; at most 366 days. Open leads, open tasks and overdue tasks are as of now."),
    h("div", { class: "period-fields" },
      h("div", { class: "field" }, h("label", { for: "period-from" }, "From"), from),
      h("div", { class: "field" }, h("label", { for: "period-to" }, "To"), to),
    ),
    h("button", { type: "submit" }, "Show the period"),
  );
}

/** When the figures were computed, in a sentence. */
export function computedLine(list: FiguresList): HTMLElement {
  return h(
    "p",
    { class: "hint", "data-test": "computed" },
    ...(list.computed_at === null
      ? ["No figures yet: they are computed when a sync of this connection ends."]
      : ["Computed from the synced records at ", timeOf(list.computed_at), ` · period ${list.period.from} to ${list.period.to} (UTC)`]),
  );
}

/** A manager's leads, 25 at a time, newest page by page (the list's own order). */
export function leadsCard(connectionId: string, user: string | null | undefined): HTMLElement {
  const list = h("ul", { class: "records", "aria-label": "Lead list" }, h("li", null, "Loading leads…"));
  const status = h("p", { role: "status", "aria-live": "polite" });
  const more = h("button", { type: "button", hidden: true }, "More leads");
  let cursor: string | null = null;
  let first = true;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await managerRecords(connectionId, "leads", user, cursor);
      if (first) list.replaceChildren();
      first = false;
      list.append(...page.data.map((lead) => h("li", { "data-lead": String(lead["id"]) }, `${String(lead["name"] ?? lead["id"])} · ${typeof lead["price"] === "number" ? lead["price"].toLocaleString("en-US") : "no price"}`)));
      if (list.children.length === 0) list.replaceChildren(h("li", null, "No leads."));
      cursor = page.next_cursor;
      more.hidden = cursor === null;
      status.textContent = `${list.querySelectorAll("li[data-lead]").length} leads shown${cursor === null ? "" : "; more below"}.`;
    } catch (error) {
      status.textContent = (error as Error).message;
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", () => void load());
  void load();
  return titledCard({ id: "manager-leads-title", title: "Their leads, one by one" }, list, more, status);
}
