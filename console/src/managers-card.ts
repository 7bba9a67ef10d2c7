import { api, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { formField, statusLine } from "./form-field";
import { linkManager, listManagers, unlinkManager, type ManagerEntry } from "./team-api";
import { titledCard } from "./titled-card";

/** The link of one CRM user, in words. */
function linkText(entry: ManagerEntry): string {
  if (entry.linked_by === "owner") return `Linked by you to the member ${entry.member_id}.`;
  if (entry.linked_by === "email") return `Linked to the member ${entry.member_id}: their sign-in email is this user's.`;
  if (entry.unlinked) return "Unlinked by you: no sign-in email links this user.";
  return "Not linked: no member with this email has signed in yet.";
}

/**
 * The connection's managers (owner only): each CRM user with who they are
 * linked to, and the owner's controls to link one to a member, unlink it, or
 * let emails link it again; and the idle threshold of the coaching signals.
 */
export function managersCard(connection: Connection & { readonly idle_days?: number }): HTMLElement {
  const list = h("ul", { class: "managers-list", "aria-label": "CRM users" }, h("li", null, "Loading the CRM's users…"));
  const status = statusLine();
  const user = formField({ name: "source_user", label: "CRM user", options: [] });
  const member = formField({ name: "member", label: "Member's user id", hint: "The id your identity provider gives the member (the token's subject). The member then sees this user's figures as theirs.", attributes: { autocomplete: "off", maxlength: "255" } });
  const render = (entries: readonly ManagerEntry[]) => {
    list.replaceChildren(
      ...(entries.length === 0
        ? [h("li", null, "No CRM user synced yet.")]
        : entries.map((entry) =>
            h(
              "li",
              { "data-source-user": entry.source_user.id },
              h("strong", null, entry.source_user.name ?? entry.source_user.id),
              entry.source_user.is_active ? "" : " (inactive)",
              entry.source_user.email === null ? "" : ` · ${entry.source_user.email}`,
              h("p", { class: "hint", "data-test": "link" }, linkText(entry)),
              h(
                "div",
                { class: "actions" },
                entry.unlinked || entry.linked_by === null
                  ? null
                  : h("button", { type: "button", onclick: () => void change(() => unlinkManager(connection.id, entry.source_user.id), "Unlinked.") }, `Unlink ${entry.source_user.name ?? entry.source_user.id}`),
                entry.unlinked || entry.linked_by === "owner"
                  ? h("button", { type: "button", onclick: () => void change(() => linkManager(connection.id, entry.source_user.id, null), "Emails link this user again.") }, `Let emails link ${entry.source_user.name ?? entry.source_user.id}`)
                  : null,
              ),
            ),
          )),
    );
    (user.input as HTMLSelectElement).replaceChildren(...entries.map((entry) => h("option", { value: entry.source_user.id }, entry.source_user.name ?? entry.source_user.id)));
  };
  const load = async () => render(await listManagers(connection.id));
  const change = async (action: () => Promise<unknown>, done: string) => {
    status.textContent = "Saving…";
    try {
      await action();
      await load();
      status.textContent = done;
    } catch (error) {
      status.textContent = (error as Error).message;
    }
  };
  const linkForm = h(
    "form",
    {
      novalidate: true,
      "aria-label": "Link a CRM user to a member",
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        member.setError(null);
        const value = member.input.value.trim();
        if (value === "") {
          member.setError("Member's user id is required.");
          member.input.focus();
          return;
        }
        void change(() => linkManager(connection.id, user.input.value, value), "Linked.");
      },
    },
    user.element,
    member.element,
    h("button", { type: "submit" }, "Link"),
  );
  const idle = formField({ name: "idle_days", label: "Idle after (days)", type: "number", value: String(connection.idle_days ?? 14), hint: "An open lead with no task, call or event for this many whole days is listed as idle in the managers' coaching.", attributes: { inputmode: "numeric", step: "1", min: "1", max: "365" } });
  const idleStatus = statusLine();
  const idleForm = h(
    "form",
    {
      novalidate: true,
      "aria-label": "Idle threshold",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        idle.setError(null);
        idleStatus.textContent = "Saving…";
        try {
          const value = idle.input.value.trim() === "" ? null : Number(idle.input.value);
          await api("PATCH", connectionPath(connection.id), { idle_days: value });
          idleStatus.textContent = "Saved.";
        } catch (error) {
          idle.setError(`Idle after ${(error as { rule?: string }).rule ?? (error as Error).message}`);
          idleStatus.textContent = "";
        }
      },
    },
    idle.element,
    h("button", { type: "submit" }, "Save the idle threshold"),
    idleStatus,
  );
  void load().catch((error: unknown) => list.replaceChildren(h("li", null, (error as Error).message)));
  return titledCard(
    { id: "managers-title", title: "Managers" },
    h("p", null, "A member sees the figures of the CRM user they are linked to. A member whose sign-in email is a user's email is linked to that user unless you decide otherwise here."),
    list,
    linkForm,
    status,
    idleForm,
  );
}
