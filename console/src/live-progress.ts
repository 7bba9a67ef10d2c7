import type { EntityProgress, RunSummary } from "./api";
import { h } from "./dom";
import { recordsOf } from "./health";
import { entityWords, statusWords } from "./entity-words";

/**
 * A live run's progress: per entity a bar of the pages read so far against
 * the pages the last run that ran to its end read, a cancelled one aside (the only honest estimate: the source
 * does not say how many pages it has), and the run's records per second.
 */
export function liveProgress(): { readonly element: HTMLElement; update(run: RunSummary, previous: RunSummary | null): void } {
  const rate = h("p", { class: "rate", "data-test": "records-per-second" });
  const list = h("ul", { class: "progress-list", "aria-label": "Pages per entity" });
  const element = h(
    "section",
    { class: "card live-progress", "aria-labelledby": "progress-title", hidden: true },
    h("h2", { id: "progress-title" }, "Progress"),
    rate,
    list,
  );
  const bars = new Map<string, { readonly bar: HTMLProgressElement; readonly text: HTMLElement }>();

  const update = (run: RunSummary, previous: RunSummary | null) => {
    element.hidden = run.status !== "running";
    if (element.hidden) return;
    const seconds = (Date.now() - Date.parse(run.started_at)) / 1000;
    const records = recordsOf(run);
    rate.textContent = `${seconds > 0 ? (records / seconds).toFixed(1) : "0.0"} records/s · ${records} records so far`;
    for (const entity of run.entities) {
      let row = bars.get(entity.entity);
      if (row === undefined) {
        const id = `progress-${entity.entity}`;
        row = { bar: h("progress", { id, max: "1", value: "0" }), text: h("span", { class: "progress-text" }) };
        bars.set(entity.entity, row);
        list.append(h("li", { "data-entity": entity.entity }, h("label", { for: id }, entityWords(entity.entity)), row.bar, row.text));
      }
      showEntity(row.bar, row.text, entity, previous?.entities.find((other) => other.entity === entity.entity) ?? null);
    }
  };
  return { element, update };
}

function showEntity(bar: HTMLProgressElement, text: HTMLElement, entity: EntityProgress, before: EntityProgress | null): void {
  const done = entity.status === "succeeded" || entity.status === "failed" || entity.status === "cancelled";
  if (entity.status === "pending") {
    // Waiting its turn: an empty bar, not a moving one (only the entity being read moves).
    bar.max = 1;
    bar.value = 0;
    text.textContent = "waiting its turn";
    return;
  }
  if (before === null || before.pages === 0) {
    // Nothing to compare with: an indeterminate bar until the entity ends.
    if (done) {
      bar.max = 1;
      bar.value = 1;
    } else bar.removeAttribute("value");
    text.textContent = `${entity.pages} page${entity.pages === 1 ? "" : "s"}${done ? "" : " so far"} (no earlier run to compare with) · ${statusWords(entity.status)}`;
    return;
  }
  // A finished entity is full however many pages the last run took; a longer one than last time grows its bar's end.
  const max = done ? Math.max(entity.pages, 1) : Math.max(before.pages, entity.pages);
  bar.max = max;
  bar.value = done ? max : entity.pages;
  text.textContent = `${entity.pages} of ${before.pages} page${before.pages === 1 ? "" : "s"} (as many as the last finished run read) · ${statusWords(entity.status)}`;
}
