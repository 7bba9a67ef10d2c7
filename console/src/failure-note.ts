import type { EntityFailure } from "./api";
import { h } from "./dom";
import { explainHref } from "./findings-list";

/** Entities whose records the explain screen finds by id alone (a failed /pipelines page may be a stage's). */
const EXPLAINABLE = new Set(["users", "contacts", "leads", "tasks", "calls", "events"]);

/**
 * Why an entity failed, for the owner: what happened, the fix, the rule it broke (a name the CRM's developers look
 * up), and the record's explanation when one record is at fault (not when its id itself is what is wrong: such a
 * record cannot be looked up).
 */
export function failureNote(connectionId: string, entity: string, failure: EntityFailure): HTMLElement {
  const record = failure.record_id;
  const explainable = record !== null && failure.rule !== "record.id" && EXPLAINABLE.has(entity);
  return h(
    "div",
    { class: "failure", "data-rule": failure.rule },
    h("p", { class: "failure-detail" }, failure.detail),
    h("p", { class: "fix" }, h("strong", null, "Fix: "), failure.fix),
    h("p", { class: "failure-rule" }, "Rule, for your CRM's developers: ", h("code", null, failure.rule)),
    explainable ? h("p", null, h("a", { href: explainHref(connectionId, entity, record) }, `Why record ${record} is as it is`)) : null,
  );
}
