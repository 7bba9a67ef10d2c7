import { api, connectionPath, RESETTABLE, type ResetResult } from "./api";
import { h } from "./dom";

/**
 * Reset and re-sync: one entity's watermark, or every incremental entity's,
 * back to the start date; then, by default, a sync (whose live view opens).
 */
export function resetForm(id: string, navigate: (hash: string) => void): HTMLFormElement {
  const entity = h(
    "select",
    { id: "reset-entity", name: "entity", "aria-describedby": "reset-hint" },
    h("option", { value: "" }, "All incremental entities"),
    RESETTABLE.map((name) => h("option", { value: name }, name)),
  );
  const startSync = h("input", { id: "reset-start-sync", type: "checkbox", name: "start_sync", checked: true });
  const status = h("p", { role: "status", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Reset");
  return h(
    "form",
    {
      class: "card",
      "aria-label": "Reset and re-sync",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
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
          status.textContent = `Reset: ${result.reset.join(", ")}. The next run reads them from the start date.`;
        } catch (error) {
          status.textContent = (error as Error).message;
        }
        button.disabled = false;
      },
    },
    h("h2", null, "Reset and re-sync"),
    h(
      "p",
      { id: "reset-hint" },
      "Sends the entity back to the start date: the next run reads all of it again (records are updated in place, never duplicated). Pipelines and users are read in full on every run.",
    ),
    h("p", { class: "field" }, h("label", { for: "reset-entity" }, "Entity"), entity),
    h("p", { class: "field checkbox" }, startSync, " ", h("label", { for: "reset-start-sync" }, "Start a sync now")),
    button,
    status,
  );
}
