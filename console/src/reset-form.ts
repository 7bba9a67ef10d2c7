import { api, connectionPath, RESETTABLE, type Connection, type ResetResult } from "./api";
import { confirmAction } from "./confirm-dialog";
import { h } from "./dom";
import { entityInSentence, entityList, entityWords } from "./entity-words";
import { dayInWords } from "./start-date";

/**
 * Read again from the start date: one kind of record, or every kind read by change date; then, by default, a sync
 * (whose live view opens). Asked first, naming what the next sync re-reads and since when; cancelling changes nothing.
 */
export function resetForm(connection: Connection, navigate: (hash: string) => void): HTMLFormElement {
  const id = connection.id;
  const entity = h(
    "select",
    { id: "reset-entity", name: "entity", "aria-describedby": "reset-hint" },
    h("option", { value: "" }, "Everything read by change date"),
    RESETTABLE.map((name) => h("option", { value: name }, entityWords(name))),
  );
  const startSync = h("input", { id: "reset-start-sync", type: "checkbox", name: "start_sync", checked: true });
  const status = h("p", { role: "status", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Read again…");
  const since = dayInWords(connection.sync_since.slice(0, 10));
  return h(
    "form",
    {
      class: "card",
      "aria-label": "Read again from the start date",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const which = entity.value === "" ? [...RESETTABLE] : [entity.value];
        const yes = await confirmAction({
          title: `Read ${entity.value === "" ? "everything" : entityInSentence(entity.value)} again?`,
          consequences: [
            `The next sync re-reads every ${which.map((name) => entityInSentence(name).replace(/s$/, "")).join(", ")} your CRM changed since ${since} (the start date), and updates each record in place: nothing is duplicated or deleted.`,
            startSync.checked ? "A sync starts at once." : "Nothing is read until the next sync, scheduled or started with Sync now.",
          ],
          confirmLabel: `Read ${entity.value === "" ? "everything" : entityInSentence(entity.value)} again`,
        });
        if (!yes) {
          status.textContent = "Nothing changed.";
          return;
        }
        button.disabled = true;
        status.textContent = "Resetting…";
        const body: Record<string, unknown> = { start_sync: startSync.checked };
        if (entity.value !== "") body["entity"] = entity.value;
        try {
          const result = await api<ResetResult>("POST", `${connectionPath(id)}/reset`, body);
          if (result.run !== null) {
            navigate(`#/connections/${encodeURIComponent(id)}/runs/${encodeURIComponent(result.run.id)}`);
            return;
          }
          status.textContent = `${entityList(result.reset)}: the next sync reads them again from ${since}.`;
        } catch (error) {
          status.textContent = (error as Error).message;
        }
        button.disabled = false;
      },
    },
    h("h2", null, "Read again from the start date"),
    h(
      "p",
      { id: "reset-hint" },
      `Makes the next sync read a kind of record again from ${since}, as if it had never been read: for records your CRM changed without saying so. Pipelines and users are read whole on every run. You are asked first.`,
    ),
    h("p", { class: "field" }, h("label", { for: "reset-entity" }, "What to read again"), entity),
    h("p", { class: "field checkbox" }, startSync, " ", h("label", { for: "reset-start-sync" }, "Start a sync now")),
    button,
    status,
  );
}
