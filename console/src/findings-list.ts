import type { RunFinding } from "./api";
import { h } from "./dom";

/** Collections whose records the explain route finds by id alone (a stage also needs its pipeline's id). */
const EXPLAINABLE = new Set(["pipelines", "users", "contacts", "leads", "tasks", "calls", "events", "loss_reasons"]);

/** The explain screen of one record. */
export function explainHref(connectionId: string, collection: string, recordId: string): string {
  return `#/connections/${encodeURIComponent(connectionId)}/explain/${encodeURIComponent(collection)}/${encodeURIComponent(recordId)}`;
}

/** Sample ids, each a link to its record's explanation where the id alone finds it. */
export function sampleIds(connectionId: string, collection: string, ids: readonly string[]): HTMLElement {
  return h(
    "ul",
    { class: "sample-ids", "aria-label": `Sample ${collection} ids` },
    ids.map((id) => h("li", null, EXPLAINABLE.has(collection) ? h("a", { href: explainHref(connectionId, collection, id) }, id) : h("code", null, id))),
  );
}

/** One finding as a list item: rule, severity, count, what the first record showed, the fix, and sample ids. */
export function findingItem(
  connectionId: string,
  entity: string,
  finding: Pick<RunFinding, "rule" | "severity" | "sample_ids" | "detail">,
  fix: string | undefined,
  countText: string,
): HTMLElement {
  return h(
    "li",
    { "data-entity": entity, "data-rule": finding.rule },
    h("span", { class: `badge severity-${finding.severity}` }, finding.severity),
    " ",
    h("code", null, finding.rule),
    " · ",
    h("span", { class: "finding-count" }, countText),
    h("p", { class: "finding-detail" }, finding.detail),
    fix ? h("p", { class: "fix" }, h("strong", null, "Fix: "), fix) : null,
    finding.sample_ids.length > 0 ? sampleIds(connectionId, entity, finding.sample_ids) : null,
  );
}
