import { h } from "./dom";
import { session } from "./session";

/** Why a ROP or MOP user sees no data and no write control: the service admits only the owner. */
export function readOnlyNote(): HTMLElement | null {
  const current = session();
  if (current === null || current.role === "owner") return null;
  return h(
    "p",
    { class: "note readonly", role: "note" },
    `Read-only: you are signed in as ${current.role}. Only the workspace owner can see and change CRM connections, so this page shows none and offers no changes.`,
  );
}
