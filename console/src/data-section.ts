import { api, COLLECTIONS, connectionPath, type RecordCounts } from "./api";
import type { Frame } from "./connection-frame";
import { h } from "./dom";
import { entityWords } from "./entity-words";
import { timeOf } from "./time";
import { titledCard } from "./titled-card";

/** The Data section: what is stored, per kind of record, and the screens that read it. */
export async function dataSection(frame: Frame): Promise<void> {
  const { connection, body } = frame;
  const base = `#/connections/${encodeURIComponent(connection.id)}`;
  const asOf = h("p", { class: "note" }, "Counting the stored records…");
  const list = h("tbody");
  body.replaceChildren(
    titledCard(
      { id: "records-title", title: "Records" },
      asOf,
      h(
        "div",
        { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Stored records" },
        h("table", { class: "entities" }, h("caption", null, "Stored records per kind"), h("thead", null, h("tr", null, h("th", { scope: "col" }, "Kind"), h("th", { scope: "col" }, "Stored"))), list),
      ),
    ),
    titledCard(
      { id: "reads-title", title: "Read the data" },
      h(
        "ul",
        { class: "links" },
        h("li", null, h("a", { href: `${base}/funnel` }, "Funnel"), ": per pipeline, how many leads reached each stage, conversion, won, lost and why."),
        h("li", null, h("a", { href: `${base}/quality` }, "Data quality"), ": records the sync stored that may be incomplete, with what your CRM's developers change."),
        h("li", null, h("a", { href: `${base}/explain` }, "Explain a record"), ": why one record is as it is, or why it is missing."),
        h("li", null, h("a", { href: `${base}/audits` }, "Audits"), ": a full comparison with your CRM that repairs what syncs missed."),
      ),
    ),
  );
  let counts: RecordCounts | null = null;
  try {
    counts = await api<RecordCounts>("GET", `${connectionPath(connection.id)}/records`);
    asOf.replaceChildren("Counted at the end of the last run, ", timeOf(counts.computed_at), ".");
  } catch (error) {
    asOf.textContent = (error as Error).message;
  }
  list.replaceChildren(
    ...COLLECTIONS.map((collection) =>
      h(
        "tr",
        { "data-collection": collection },
        h("th", { scope: "row" }, h("a", { href: `${base}/records/${collection}` }, entityWords(collection))),
        h("td", { class: "number" }, counts === null ? "—" : counts.collections[collection].toLocaleString("en-US")),
      ),
    ),
  );
}
