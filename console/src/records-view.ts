import { api, COLLECTIONS, connectionPath, type RecordsPage } from "./api";
import { h } from "./dom";
import { explainHref } from "./findings-list";
import { timeOf } from "./time";

const PAGE_SIZE = 25;
const LABEL_FIELDS = ["name", "title", "subject", "type", "email", "label"];

/** A short line that tells records apart: its id, the first name-like field it has, and when it last changed (local time, UTC on hover). */
function labelOf(record: Record<string, unknown>): (string | Node)[] {
  const id = String(record["id"] ?? record["source_id"] ?? "record");
  const named = LABEL_FIELDS.map((field) => record[field]).find((value) => typeof value === "string" && value !== "");
  const changed = [record["updated_at"], record["created_at"]].find((value) => typeof value === "string" && value !== "");
  const text = [id, named].filter(Boolean).join(" · ");
  return changed ? [`${text} · updated `, timeOf(String(changed))] : [text];
}

/** The records explorer of one entity, newest first (updated_at, else created_at: docs/console.md); a record's stored JSON on click. */
export function recordsView(outlet: HTMLElement, id: string, entity: string): void {
  const list = h("ul", { class: "records", "aria-label": `${entity} records` });
  const detail = h("section", { class: "card record-json", "aria-labelledby": "json-title", hidden: true });
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  const previous = h("button", { type: "button", disabled: true }, "Previous page");
  const next = h("button", { type: "button", disabled: true }, "Next page");
  // Cursors of the pages seen so far: page n was read with cursors[n].
  const cursors: (string | null)[] = [null];
  let page = 0;

  const load = async () => {
    status.textContent = "Loading…";
    previous.disabled = true;
    next.disabled = true;
    const cursor = cursors[page] ?? null;
    const query = `?order=newest&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    try {
      const result = await api<RecordsPage>("GET", `${connectionPath(id)}/records/${encodeURIComponent(entity)}${query}`);
      cursors[page + 1] = result.next_cursor;
      status.textContent = `Page ${page + 1}: ${result.data.length} record${result.data.length === 1 ? "" : "s"}${result.next_cursor ? "" : " (last page)"}.`;
      list.replaceChildren(
        ...result.data.map((record) =>
          h(
            "li",
            null,
            h(
              "button",
              {
                type: "button",
                class: "record",
                onclick: () => {
                  detail.hidden = false;
                  const title = h("h2", { id: "json-title", tabindex: "-1" }, labelOf(record));
                  const recordId = typeof record["id"] === "string" ? record["id"] : null;
                  detail.replaceChildren(
                    title,
                    // Why the store holds it as it does: its lineage and verdict (a stage is found with its pipeline's id).
                    recordId === null || entity === "stages" ? "" : h("p", null, h("a", { href: explainHref(id, entity, recordId) }, "Explain this record: its lineage and verdict")),
                    h("pre", { tabindex: "0" }, JSON.stringify(record, null, 2)),
                  );
                  title.focus();
                },
              },
              labelOf(record),
            ),
          ),
        ),
      );
      previous.disabled = page === 0;
      next.disabled = result.next_cursor === null;
    } catch (error) {
      status.textContent = (error as Error).message;
    }
  };
  previous.addEventListener("click", () => {
    page -= 1;
    void load();
  });
  next.addEventListener("click", () => {
    page += 1;
    void load();
  });

  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, `Records: ${entity}`),
    h("p", null, h("a", { href: `#/connections/${encodeURIComponent(id)}` }, "← Connection")),
    h(
      "nav",
      { "aria-label": "Entities" },
      h(
        "ul",
        { class: "chips" },
        COLLECTIONS.map((name) =>
          h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/records/${name}`, ...(name === entity ? { "aria-current": "page" } : {}) }, name)),
        ),
      ),
    ),
    h("p", { class: "note" }, "Newest first: by the record's updated_at (created_at when it has none); records with neither come last."),
    status,
    h("div", { class: "records-layout" }, h("div", null, list, h("div", { class: "actions" }, previous, next)), detail),
  );
  void load();
}
