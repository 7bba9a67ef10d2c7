import type { Connection, RecordCounts, RunSummary } from "./api";
import type { Quality } from "./data-trust-api";
import { h } from "./dom";
import { entityWords, statusWords } from "./entity-words";
import { timeOf } from "./time";

/** The rows of the Status table: what the sync reads, in its order. */
const ROWS = ["pipelines", "stages", "users", "contacts", "leads", "tasks", "calls", "events"] as const;
/** Entities without a freshness of their own: stages come with pipelines. */
const FRESHNESS_OF: Readonly<Record<string, string>> = { stages: "pipelines" };

const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;

/** "fresh", "stale: older than 24 hours", "not read yet". */
function freshnessWords(dataAsOf: string | null, hours: number | null, now: number): string {
  if (dataAsOf === null) return "not read yet";
  if (hours === null) return "no limit set";
  return now - Date.parse(dataAsOf) > hours * 3_600_000 ? `stale: older than ${plural(hours, "hour")}` : "fresh";
}

/**
 * Per entity, on one line: its status in the newest run, the records stored, its last complete sync and whether
 * that is fresh, its open findings (linking to data quality), and what failed (the fix is above, in "What went wrong").
 */
export function entityStatusTable(
  connection: Connection,
  latest: RunSummary | undefined,
  counts: RecordCounts | null,
  quality: Quality | null,
): HTMLElement {
  const now = Date.now();
  const qualityHref = `#/connections/${encodeURIComponent(connection.id)}/quality`;
  const rows = ROWS.map((entity) => {
    const row = latest?.entities.find((candidate) => candidate.entity === entity);
    const freshness = connection.freshness[FRESHNESS_OF[entity] ?? entity] ?? { data_as_of: null, watermark: null };
    const rules = (quality?.entities.find((candidate) => candidate.entity === entity)?.rules ?? []).filter((rule) => (rule.last_successful_run ?? 0) > 0);
    const findingRecords = rules.reduce((sum, rule) => sum + (rule.last_successful_run ?? 0), 0);
    const fresh = freshnessWords(freshness.data_as_of, connection.freshness_hours, now);
    return h(
      "tr",
      { "data-entity": entity },
      h("th", { scope: "row" }, entityWords(entity)),
      h("td", null, row === undefined ? "—" : h("span", { class: `badge entity-${row.status}` }, statusWords(row.status))),
      h("td", { class: "number" }, counts === null ? "—" : counts.collections[entity].toLocaleString("en-US")),
      h("td", null, freshness.data_as_of === null ? "never" : timeOf(freshness.data_as_of)),
      h("td", { class: fresh.startsWith("stale") ? "bad" : "" }, fresh),
      h("td", null, rules.length === 0 ? "none" : h("a", { href: qualityHref }, `${plural(rules.length, "rule")}, ${plural(findingRecords, "record")}`)),
      h("td", { class: "error-cell" }, row?.failure ? h("code", { title: row.failure.fix }, row.failure.rule) : ""),
    );
  });
  return h(
    "div",
    { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Each kind of data" },
    h(
      "table",
      { class: "entities status-table" },
      h("caption", null, "Each kind of data, in the order the sync reads it"),
      h("thead", null, h("tr", null, ["Data", "Newest run", "Stored", "Last complete sync", "Freshness", "Open findings", "Rule broken"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", null, rows),
    ),
  );
}
