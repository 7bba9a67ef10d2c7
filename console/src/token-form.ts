import { api, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { clearProblems, showProblems } from "./form-errors";
import { formField, statusLine } from "./form-field";

/** Token rotation: a write-only field, emptied once sent; the stored token is never shown. */
export function tokenForm(connection: Connection): HTMLElement {
  const token = formField({ name: "token", label: "New API token", type: "password", hint: "Replaces the stored token; the next sync uses it. It is never shown again.", attributes: { autocomplete: "off", spellcheck: "false" } });
  const status = statusLine();
  return h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "rotate-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        clearProblems({ token });
        status.textContent = "Replacing the token…";
        const value = token.input.value;
        // Out of the page before the request returns: nothing keeps the token around.
        token.input.value = "";
        try {
          await api<Connection>("PATCH", connectionPath(connection.id), { token: value });
          status.textContent = "Token replaced. The next sync uses it.";
        } catch (error) {
          showProblems(error, { token }, status);
        }
      },
    },
    h("h2", { id: "rotate-title" }, "Replace the API token"),
    token.element,
    h("button", { type: "submit" }, "Replace token"),
    status,
  );
}
