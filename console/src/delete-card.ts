import { api, connectionPath, type Connection } from "./api";
import { confirmAction } from "./confirm-dialog";
import { h } from "./dom";
import { titledCard } from "./titled-card";

/** Delete, asked first: what is removed, and that it cannot be undone; cancelling changes nothing. */
export function deleteCard(connection: Connection, navigate: (hash: string) => void): HTMLElement {
  const status = h("p", { role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "danger" }, "Delete connection");
  const name = connection.name ?? connection.base_url;
  button.addEventListener("click", async () => {
    const yes = await confirmAction({
      title: `Delete ${name}?`,
      consequences: [
        "Syncing stops at once, and the connection with its stored token is deleted at once.",
        "An hour later every record synced from it, its run history, audits and figures are deleted too.",
        "This cannot be undone: to sync this CRM again, create a new connection, which reads everything from the start.",
      ],
      confirmLabel: "Delete for good",
    });
    if (!yes) {
      status.textContent = "Not deleted.";
      return;
    }
    button.disabled = true;
    status.textContent = "Deleting…";
    try {
      await api<void>("DELETE", connectionPath(connection.id));
      navigate("#/connections");
    } catch (error) {
      status.textContent = (error as Error).message;
      button.disabled = false;
    }
  });
  return titledCard(
    { id: "delete-title", title: "Delete the connection", className: "danger-zone" },
    h("p", null, "Stops syncing and deletes everything synced from this CRM. You are asked first."),
    button,
    status,
  );
}
