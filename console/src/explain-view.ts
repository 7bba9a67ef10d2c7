import { api, COLLECTIONS, connectionPath } from "./api";
import type { Explanation, RecordWithLineage } from "./data-trust-api";
import { h, uid } from "./dom";
import { timeOf } from "./time";
import { explainHref } from "./findings-list";
import { entityWords } from "./entity-words";
import { HEAL_CAUSE_WORDS } from "./data-trust-api";
import { VERDICT_WORDS } from "./verdict-words";
import { titledCard } from "./titled-card";

const runHref = (id: string, runId: string) => `#/connections/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`;
const auditHref = (id: string, auditId: string) => `#/connections/${encodeURIComponent(id)}/audits/${encodeURIComponent(auditId)}`;

/**
 * Explain a record: find it by collection and id, then show why the store
 * holds what it holds (or why it holds nothing), the stored record and its
 * lineage. `target` is the record the route names, if any.
 */
export async function explainView(
  outlet: HTMLElement,
  id: string,
  target: { readonly collection: string; readonly recordId: string; readonly pipelineId?: string } | null,
): Promise<void> {
  const collectionId = uid("collection");
  const recordId = uid("record-id");
  const pipelineId = uid("pipeline-id");
  const collection = h("select", { id: collectionId, name: "collection" }, COLLECTIONS.map((name) => h("option", { value: name }, entityWords(name))));
  collection.value = target?.collection ?? "leads";
  const recordInput = h("input", { id: recordId, name: "record_id", required: true, autocomplete: "off", value: target?.recordId ?? "" });
  const pipelineInput = h("input", { id: pipelineId, name: "pipeline_id", autocomplete: "off", "aria-describedby": `${pipelineId}-hint`, value: target?.pipelineId ?? "" });
  const form = h(
    "form",
    { class: "card explain-form", "aria-label": "Find a record" },
    h("div", { class: "field" }, h("label", { for: collectionId }, "Kind of record"), collection),
    h("div", { class: "field" }, h("label", { for: recordId }, "Its id (exactly as in your CRM)"), recordInput),
    h(
      "div",
      { class: "field" },
      h("label", { for: pipelineId }, "Its pipeline's id"),
      pipelineInput,
      h("p", { class: "hint", id: `${pipelineId}-hint` }, "Stages only: a stage is found by its pipeline and its own id."),
    ),
    h("div", { class: "field" }, h("button", { type: "submit", class: "primary" }, "Explain")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const record = recordInput.value.trim();
    if (record === "") return;
    const pipeline = pipelineInput.value.trim();
    location.hash = `${explainHref(id, collection.value, record)}${collection.value === "stages" && pipeline !== "" ? `/${encodeURIComponent(pipeline)}` : ""}`;
  });
  const status = h("p", { role: "status", "aria-live": "polite" });
  const result = h("div", { class: "explain-result" });
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, target === null ? "Explain a record" : `Why ${entityWords(target.collection).toLowerCase().replace(/s$/, "")} ${target.recordId} is as it is`),
    form,
    status,
    result,
  );
  if (target === null) return;

  status.textContent = "Loading…";
  const path = `${connectionPath(id)}/records/${encodeURIComponent(target.collection)}/${encodeURIComponent(target.recordId)}`;
  const query = target.pipelineId ? `?pipeline_id=${encodeURIComponent(target.pipelineId)}` : "";
  let explanation: Explanation;
  let stored: RecordWithLineage;
  try {
    [explanation, stored] = await Promise.all([api<Explanation>("GET", `${path}/explain${query}`), api<RecordWithLineage>("GET", `${path}${query}`)]);
  } catch (error) {
    status.textContent = (error as Error).message;
    return;
  }
  status.textContent = explanation.present ? "The service holds this record." : "The service does not hold this record.";
  result.replaceChildren(
    h(
      "section",
      { class: "card", "aria-labelledby": "verdict-title", "data-verdict": explanation.verdict, "data-present": String(explanation.present) },
      h("h2", { id: "verdict-title" }, VERDICT_WORDS[explanation.verdict].title),
      h("p", { class: `verdict verdict-${explanation.verdict}` }, VERDICT_WORDS[explanation.verdict].sentence),
      h(
        "dl",
        { class: "facts" },
        fact("Stored", explanation.present ? "yes" : "no"),
        // A time the store could parse shows as a <time>; one it could not (the verdict's point) shows as the source sent it.
        fact("Changed in your CRM at", timeOf(explanation.updated_at)),
        explanation.healed_by_audit === null
          ? []
          : fact(
              "Repaired by an audit",
              h("a", { href: auditHref(id, explanation.healed_by_audit.audit_id) }, "the audit"),
              ` found it ${HEAL_CAUSE_WORDS[explanation.healed_by_audit.cause]}: changed in your CRM at `,
              timeOf(explanation.healed_by_audit.updated_at),
              ", when the syncs had read up to ",
              timeOf(explanation.healed_by_audit.watermark),
            ),
        explanation.ahead_of_watermark === null
          ? []
          : fact(
              "Changed after the last sync",
              h("a", { href: auditHref(id, explanation.ahead_of_watermark.audit_id) }, "an audit"),
              " saw it changed at ",
              timeOf(explanation.ahead_of_watermark.updated_at),
              "; the next sync brings it",
            ),
        explanation.absent_in_source === null
          ? []
          : fact("No longer in your CRM", h("a", { href: auditHref(id, explanation.absent_in_source.audit_id) }, "an audit"), " did not find it (it is kept)"),
        fact("Needs a look", explanation.findings.length === 0 ? "no" : explanation.findings.join(", ")),
        fact(
          "Last audit",
          explanation.last_audit === null
            ? "none has run"
            : [h("a", { href: auditHref(id, explanation.last_audit.id) }, timeOf(explanation.last_audit.started_at)), ` · ${explanation.last_audit.status}`],
        ),
      ),
    ),
    stored.lineage === null
      ? h("section", { class: "card", "aria-labelledby": "lineage-title" }, h("h2", { id: "lineage-title" }, "Its history"), h("p", null, "None: the service holds no such record."))
      : titledCard(
          { id: "lineage-title", title: "Its history", className: "lineage" },
          h(
            "dl",
            { class: "facts" },
            fact(
              "First stored",
              stored.lineage.first_seen === null
                ? "before its history was kept"
                : [h("a", { href: runHref(id, stored.lineage.first_seen.run_id) }, timeOf(stored.lineage.first_seen.at)), ` · by a sync, page ${stored.lineage.first_seen.page}`],
            ),
            fact(
              "Last written",
              stored.lineage.last_written === null
                ? "—"
                : [
                    // An audit's write names the audit, a sync's the run.
                    h("a", { href: stored.lineage.last_written.run_id.startsWith("audit-") ? auditHref(id, stored.lineage.last_written.run_id) : runHref(id, stored.lineage.last_written.run_id) }, timeOf(stored.lineage.last_written.at)),
                    ` · by ${stored.lineage.last_written.run_id.startsWith("audit-") ? "an audit" : "a sync"}, page ${stored.lineage.last_written.page} · changed in your CRM at `,
                    stored.lineage.last_written.source_updated_at === null ? "a date that could not be read" : timeOf(stored.lineage.last_written.source_updated_at),
                  ],
            ),
            fact("Times written", stored.lineage.writes),
            fact("Deleted", timeOf(stored.lineage.deleted_at)),
            fact("Repaired by an audit", stored.lineage.healed_by_audit === null ? "no" : h("a", { href: auditHref(id, stored.lineage.healed_by_audit) }, "yes")),
            fact("Needed a look when last written", stored.lineage.findings.length === 0 ? "none" : stored.lineage.findings.join(", ")),
          ),
        ),
    stored.record === null
      ? ""
      : titledCard(
          { id: "stored-title", title: "Stored record", className: "record-json" },
          h("pre", { tabindex: "0", "aria-label": "Stored record, JSON" }, JSON.stringify(stored.record, null, 2)),
        ),
  );
}

function fact(label: string, ...value: (Node | string | number | readonly (Node | string)[])[]): Node[] {
  return [h("dt", null, label), h("dd", { "data-fact": label }, ...value)];
}
