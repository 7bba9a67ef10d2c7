import { api, ApiError, connectionPath } from "./api";
import { AHEAD_WORDS, HEAL_CAUSE_WORDS, HEAL_CAUSES, healedOf, type AuditSummary } from "./data-trust-api";
import { h } from "./dom";
import { duration, timeOf } from "./time";
import { sampleIds } from "./findings-list";
import { pollWhileRunning } from "./live-poll";
import { isOwner } from "./session";
import { entityWords, statusWords } from "./entity-words";
import { titledCard } from "./titled-card";

const auditsHref = (id: string) => `#/connections/${encodeURIComponent(id)}/audits`;
const auditHref = (id: string, auditId: string) => `${auditsHref(id)}/${encodeURIComponent(auditId)}`;

/** A connection's audits, newest first, and (for the owner) a button that starts one and opens it. */
export async function auditsView(outlet: HTMLElement, id: string, navigate: (hash: string) => void): Promise<void> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  const startStatus = h("p", { role: "status", "aria-live": "polite", "data-test": "audit-start-status" });
  const start = h("button", { type: "button", class: "primary" }, "Start an audit");
  start.addEventListener("click", async () => {
    start.disabled = true;
    startStatus.textContent = "Starting…";
    try {
      const started = await api<{ id: string }>("POST", `${connectionPath(id)}/audits`);
      navigate(auditHref(id, started.id));
    } catch (error) {
      // A 409 names the sync or audit going on.
      startStatus.textContent = error instanceof ApiError && error.status === 409 ? `Not now: ${error.message}` : (error as Error).message;
      start.disabled = false;
    }
  });
  const list = h("ul", { class: "runs", "aria-label": "Audits" });
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, "Audits"),
    titledCard(
      { id: "audit-start-title", title: "Audit" },
      h(
        "p",
        null,
        "An audit reads every contact, lead, task, call and event the source holds since the start date and heals what syncs missed: records the source saved late, changed without their change time moving, or older in the store than at the source. Records changed after the last sync are counted, not healed: the next sync brings them. An audit never deletes anything.",
      ),
      ...(isOwner() ? [start, startStatus] : []),
    ),
    h("section", { class: "card", "aria-labelledby": "audit-list-title" }, h("h2", { id: "audit-list-title" }, "Audits, newest first"), status, list),
  );
  try {
    const audits = (await api<{ data: AuditSummary[] }>("GET", `${connectionPath(id)}/audits`)).data;
    status.textContent = audits.length === 0 ? "No audit has run yet." : "";
    list.replaceChildren(
      ...audits.map((audit) =>
        h(
          "li",
          { "data-audit": audit.id },
          h("a", { href: auditHref(id, audit.id) }, timeOf(audit.started_at)),
          " ",
          h("span", { class: `badge entity-${audit.status}` }, audit.status),
          ` · ${duration(audit.started_at, audit.finished_at)} · healed ${audit.entities.reduce((sum, entity) => sum + healedOf(entity), 0)}`,
        ),
      ),
    );
  } catch (error) {
    status.textContent = (error as Error).message;
  }
}

/** One audit, watched while it runs: per entity what the source returned, what the store holds, and what was healed, by cause. */
export function auditView(outlet: HTMLElement, id: string, auditId: string): () => void {
  const status = h("p", { class: "audit-status", role: "status", "aria-live": "polite" }, "Loading…");
  const total = h("p", { class: "healed-total" });
  const body = h("tbody");
  const samples = h("div", { class: "audit-samples" });
  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, "Audit"),
    h("p", null, h("a", { href: auditsHref(id) }, "← Audits")),
    status,
    total,
    h(
      "div",
      { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Entities of this audit" },
      h(
        "table",
        { class: "entities" },
        h("caption", null, "What each entity's audit read, and what it healed"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Data", "Status", "In your CRM", "Stored", ...HEAL_CAUSES.map((cause) => `Healed: ${HEAL_CAUSE_WORDS[cause]}`), `${capitalised(AHEAD_WORDS)}: left to the next sync`, "No longer in your CRM (kept)"].map((name) =>
              h("th", { scope: "col" }, name),
            ),
          ),
        ),
        body,
      ),
    ),
    h("section", { class: "card", "aria-labelledby": "samples-title" }, h("h2", { id: "samples-title" }, "Healed records: samples"), samples),
  );

  const show = (audit: AuditSummary) => {
    status.dataset["status"] = audit.status;
    // As the run view's status: the start is a <time>, local with UTC on hover.
    status.replaceChildren(
      ...(audit.status === "running"
        ? ["Running since ", timeOf(audit.started_at)]
        : [`${audit.status === "succeeded" ? "Succeeded" : "Failed"} · started `, timeOf(audit.started_at), ` · took ${duration(audit.started_at, audit.finished_at)}`]),
    );
    const byCause = HEAL_CAUSES.map((cause) => [cause, audit.entities.reduce((sum, entity) => sum + entity.healed[cause], 0)] as const);
    const healed = byCause.reduce((sum, [, count]) => sum + count, 0);
    const ahead = audit.entities.reduce((sum, entity) => sum + entity.ahead_of_watermark, 0);
    // Only what was healed is the alarm; what changed after the last sync is said apart, as what the next sync brings.
    total.textContent =
      `Healed ${healed} record${healed === 1 ? "" : "s"}${healed === 0 ? "" : `: ${byCause.filter(([, count]) => count > 0).map(([cause, count]) => `${count} ${HEAL_CAUSE_WORDS[cause]}`).join(", ")}`}.` +
      (ahead === 0 ? "" : ` ${ahead} record${ahead === 1 ? "" : "s"} ${AHEAD_WORDS}: nothing to heal, the next sync brings ${ahead === 1 ? "it" : "them"}.`);
    body.replaceChildren(
      ...audit.entities.map((entity) =>
        h(
          "tr",
          { "data-entity": entity.entity },
          h("th", { scope: "row" }, entityWords(entity.entity)),
          h("td", null, h("span", { class: `badge entity-${entity.status}` }, statusWords(entity.status)), entity.error ? h("span", { class: "error-cell" }, ` ${entity.error}`) : null),
          h("td", null, entity.source_records),
          h("td", null, entity.stored_records),
          ...HEAL_CAUSES.map((cause) => h("td", { "data-cause": cause }, entity.healed[cause])),
          h("td", { "data-count": "ahead_of_watermark" }, entity.ahead_of_watermark),
          h("td", { "data-cause": "absent_in_source" }, entity.absent_in_source),
        ),
      ),
    );
    const withSamples = audit.entities.filter((entity) => entity.sample_ids.length > 0);
    samples.replaceChildren(
      ...(withSamples.length === 0
        ? [h("p", null, audit.status === "running" ? "None so far." : "None.")]
        : withSamples.map((entity) => h("div", { "data-entity": entity.entity }, h("h3", null, entityWords(entity.entity)), sampleIds(id, entity.entity, entity.sample_ids)))),
    );
  };

  const watch = pollWhileRunning(
    () => api<AuditSummary>("GET", `${connectionPath(id)}/audits/${encodeURIComponent(auditId)}`),
    show,
    (message) => (status.textContent = message),
  );
  return () => watch.stop();
}

function capitalised(words: string): string {
  return `${words[0]!.toUpperCase()}${words.slice(1)}`;
}
