import { api, COLLECTIONS, connectionPath, type RecordCounts, type RecordsPage } from "./api";
import type { Explanation, RecordWithLineage } from "./data-trust-api";
import { h, uid } from "./dom";
import { entityInSentence, entityWords } from "./entity-words";
import { explainHref } from "./findings-list";
import { LOOKUPS_OF, RECORD_COLUMNS, stageKey, type Lookups } from "./record-columns";
import { timeOf } from "./time";
import { VERDICT_WORDS } from "./verdict-words";

const PAGE_SIZE = 50;
type Doc = Readonly<Record<string, unknown>>;

/** The names the columns show in place of ids (one small list each: pipelines, stages, users). */
async function lookupsFor(id: string, entity: string): Promise<Lookups> {
  const read = async (collection: string) =>
    (LOOKUPS_OF[entity] ?? []).includes(collection as never)
      ? (await api<RecordsPage>("GET", `${connectionPath(id)}/records/${collection}?limit=1000`).catch(() => ({ data: [] }))).data
      : [];
  const [pipelines, stages, users] = await Promise.all([read("pipelines"), read("stages"), read("users")]);
  const names = (docs: readonly Doc[], key: (doc: Doc) => string) => new Map(docs.map((doc) => [key(doc), String(doc["name"] ?? doc["id"])]));
  return { pipelines: names(pipelines, (doc) => String(doc["id"])), stages: names(stages, (doc) => stageKey(doc["pipeline_id"], doc["id"])), users: names(users, (doc) => String(doc["id"])) };
}

/**
 * The records of one kind, newest first (updated_at, else created_at), 50 a page: a total, a search by exact id,
 * columns per kind, and beside a row, opened from its id, the stored JSON and why the record is as it is.
 */
export function recordsView(outlet: HTMLElement, id: string, entity: string): void {
  const columns = RECORD_COLUMNS[entity] ?? [];
  const lookups = lookupsFor(id, entity);
  const body = h("tbody");
  const total = h("p", { "data-test": "records-total" });
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  const previous = h("button", { type: "button", disabled: true }, "Previous page");
  const next = h("button", { type: "button", disabled: true }, "Next page");
  const cursors: (string | null)[] = [null];
  let page = 0;
  let stored: number | null = null;

  /** One record's row, and the row under it that opens with its JSON and its explanation. */
  const rowsOf = (record: Doc, names: Lookups, open = false): HTMLElement[] => {
    const recordId = String(record["id"] ?? "");
    const detailId = uid("record-detail");
    const detail = h("tr", { class: "record-detail", id: detailId, hidden: !open }, h("td", { colspan: String(columns.length + 1) }));
    const toggle = h("button", { type: "button", class: "record-id", "aria-expanded": String(open), "aria-controls": detailId }, recordId);
    const show = () => {
      const cell = detail.firstElementChild as HTMLElement;
      if (cell.childElementCount === 0) cell.replaceChildren(...detailOf(id, entity, record));
    };
    toggle.addEventListener("click", () => {
      const opening = detail.hidden;
      detail.hidden = !opening;
      toggle.setAttribute("aria-expanded", String(opening));
      if (opening) show();
    });
    if (open) show();
    return [h("tr", { "data-record": recordId }, h("th", { scope: "row" }, toggle), columns.map((column) => h("td", { class: column.numeric ? "number" : "" }, column.cell(record, names)))), detail];
  };

  const load = async () => {
    status.textContent = "Loading…";
    previous.disabled = true;
    next.disabled = true;
    const cursor = cursors[page] ?? null;
    try {
      const result = await api<RecordsPage>("GET", `${connectionPath(id)}/records/${encodeURIComponent(entity)}?order=newest&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      const names = await lookups;
      cursors[page + 1] = result.next_cursor;
      const first = page * PAGE_SIZE + 1;
      status.textContent = result.data.length === 0 ? "None stored." : `Page ${page + 1}: ${first} to ${first + result.data.length - 1}${stored === null ? "" : ` of ${stored.toLocaleString("en-US")}`}, newest first.`;
      body.replaceChildren(...result.data.flatMap((record) => rowsOf(record, names)));
      previous.disabled = page === 0;
      next.disabled = result.next_cursor === null;
    } catch (error) {
      status.textContent = (error as Error).message;
    }
  };
  previous.addEventListener("click", () => void ((page -= 1), load()));
  next.addEventListener("click", () => void ((page += 1), load()));

  const found = h("div", { class: "found", role: "status", "aria-live": "polite" });
  const search = searchForm(entity, async (recordId, pipelineId) => {
    found.replaceChildren("Looking…");
    const query = pipelineId === "" ? "" : `?pipeline_id=${encodeURIComponent(pipelineId)}`;
    try {
      const result = await api<RecordWithLineage>("GET", `${connectionPath(id)}/records/${encodeURIComponent(entity)}/${encodeURIComponent(recordId)}${query}`);
      if (result.record === null) {
        found.replaceChildren(h("p", null, `No ${entityInSentence(entity).replace(/s$/, "")} with the id ${recordId} is stored. `, entity === "stages" ? "" : h("a", { href: explainHref(id, entity, recordId) }, "Why not?")));
        return;
      }
      found.replaceChildren(h("table", { class: "entities records-table" }, h("caption", null, `Found: ${recordId}`), headOf(columns.map((column) => column.label)), h("tbody", null, rowsOf(result.record, await lookups, true))));
    } catch (error) {
      found.replaceChildren((error as Error).message);
    }
  });

  outlet.replaceChildren(
    h("h1", { tabindex: "-1" }, `Records: ${entityWords(entity)}`),
    h("nav", { "aria-label": "Kinds of records" }, h("ul", { class: "chips" }, COLLECTIONS.map((name) => h("li", null, h("a", { href: `#/connections/${encodeURIComponent(id)}/records/${name}`, ...(name === entity ? { "aria-current": "page" } : {}) }, entityWords(name)))))),
    total,
    search,
    found,
    status,
    h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `${entityWords(entity)}, newest first` }, h("table", { class: "entities records-table" }, h("caption", null, `${entityWords(entity)}, newest first: open an id for its stored record and why it is as it is`), headOf(columns.map((column) => column.label)), body)),
    h("div", { class: "actions" }, previous, next),
  );
  void api<RecordCounts>("GET", `${connectionPath(id)}/records`)
    .then((counts) => {
      stored = counts.collections[entity as keyof RecordCounts["collections"]] ?? null;
      total.replaceChildren(`${(stored ?? 0).toLocaleString("en-US")} stored, counted at the end of the last run (`, timeOf(counts.computed_at), ").");
    })
    .catch(() => total.replaceChildren())
    .finally(() => void load());
}

function headOf(labels: readonly string[]): HTMLElement {
  return h("thead", null, h("tr", null, h("th", { scope: "col" }, "Id"), labels.map((label) => h("th", { scope: "col" }, label))));
}

/** Search by exact id (a stage also by its pipeline's id). */
function searchForm(entity: string, find: (recordId: string, pipelineId: string) => void): HTMLFormElement {
  const recordId = uid("find-id");
  const pipelineId = uid("find-pipeline");
  const idInput = h("input", { id: recordId, name: "record_id", autocomplete: "off", required: true });
  const pipelineInput = h("input", { id: pipelineId, name: "pipeline_id", autocomplete: "off" });
  return h(
    "form",
    {
      class: "card find-form",
      "aria-label": "Find a record by its id",
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        if (idInput.value.trim() !== "") find(idInput.value.trim(), pipelineInput.value.trim());
      },
    },
    h("div", { class: "field" }, h("label", { for: recordId }, "Find by id (exactly as in your CRM)"), idInput),
    entity === "stages" ? h("div", { class: "field" }, h("label", { for: pipelineId }, "Its pipeline's id"), pipelineInput) : null,
    h("div", { class: "field" }, h("button", { type: "submit" }, "Find")),
  );
}

/** Beside a row: why the record is as it is (its explanation, read when opened) and its stored JSON. */
function detailOf(id: string, entity: string, record: Doc): Node[] {
  const recordId = String(record["id"] ?? "");
  const why = h("p", { class: "verdict" }, entity === "stages" ? "" : "Reading why it is as it is…");
  if (entity !== "stages") {
    void api<Explanation>("GET", `${connectionPath(id)}/records/${encodeURIComponent(entity)}/${encodeURIComponent(recordId)}/explain`)
      .then((explanation) => {
        const words = VERDICT_WORDS[explanation.verdict];
        why.replaceChildren(h("strong", null, `${words.title}: `), words.sentence, " ", h("a", { href: explainHref(id, entity, recordId) }, "Its full history"));
      })
      .catch((error: Error) => why.replaceChildren(error.message));
  }
  return [why, h("pre", { tabindex: "0", "aria-label": `Stored record ${recordId}` }, JSON.stringify(record, null, 2))];
}
