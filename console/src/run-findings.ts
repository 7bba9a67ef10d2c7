import { entityWords } from "./entity-words";
import { api, connectionPath, type RunSummary } from "./api";
import type { Quality } from "./data-trust-api";
import { h } from "./dom";
import { findingItem } from "./findings-list";
import { titledCard } from "./titled-card";

/**
 * A run's data quality: per entity, the silent rules its records hit (count,
 * sample ids linking to the record, the rule's fix). Fixes come from the
 * connection's quality route, which carries the kit's catalog text.
 */
export function runFindings(connectionId: string): { readonly element: HTMLElement; update(run: RunSummary): void } {
  const list = h("ul", { class: "findings", "aria-label": "Findings of this run" });
  const note = h("p", { class: "note" });
  const element = titledCard(
    { id: "run-findings-title", title: "Data quality in this run", className: "run-findings" },
    h("p", null, h("a", { href: `#/connections/${encodeURIComponent(connectionId)}/quality` }, "The connection's data quality over its last runs")),
    note,
    list,
  );
  let fixes: Promise<Map<string, string>> | null = null;
  let shown = "";
  const update = (run: RunSummary) => {
    const findings = run.entities.flatMap((entity) => entity.findings.map((finding) => ({ entity: entity.entity, finding })));
    // The status too: a finished run's last read fetches the fixes of rules that were new while it ran.
    const key = JSON.stringify([run.status, findings]);
    if (key === shown) return;
    shown = key;
    note.hidden = findings.length > 0;
    note.textContent = run.status === "running" ? "No record of this run needs a look so far." : "No record of this run needs a look.";
    // Read again when a rule has no fix yet: a run under way is not in the quality route's runs until it ends.
    const known = fixes ?? Promise.resolve(new Map<string, string>());
    fixes = known.then((fixOf) =>
      findings.every(({ finding }) => fixOf.has(finding.rule))
        ? fixOf
        : api<Quality>("GET", `${connectionPath(connectionId)}/quality`)
            .then((quality) => new Map(quality.entities.flatMap((entity) => entity.rules.map((rule) => [rule.rule, rule.fix] as const))))
            .catch(() => fixOf),
    );
    void fixes.then((fixOf) => {
      if (shown !== key) return;
      list.replaceChildren(
        ...findings.map(({ entity, finding }) =>
          findingItem(connectionId, entity, finding, fixOf.get(finding.rule), `${entityWords(entity)}: ${finding.count} record${finding.count === 1 ? "" : "s"}`),
        ),
      );
    });
  };
  return { element, update };
}
