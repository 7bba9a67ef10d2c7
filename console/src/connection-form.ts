import { api, ApiError, CONNECTIONS, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { formField, statusLine, type FormField } from "./form-field";

const NAME_HINT = "What you call this connection, shown in place of its URL (up to 100 characters). Optional.";
const RATE_HINT = "Requests per second the service may send to your CRM (1 to 1000).";
const START_HINT = "The first sync reads records changed since this day (UTC).";

/** The rate as the owner typed it: a number when it is one, else the text, so the API's own rule answers. */
function rateValue(input: HTMLInputElement | HTMLSelectElement): unknown {
  const text = input.value.trim();
  return text !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

function startValue(input: HTMLInputElement | HTMLSelectElement): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(input.value) ? `${input.value}T00:00:00Z` : input.value;
}

/** Puts a 422's message under the field it names; anything else goes to the form's status line. */
function showError(error: unknown, fields: Record<string, FormField>, status: HTMLElement): void {
  if (error instanceof ApiError && error.field !== undefined && fields[error.field]) {
    const field = fields[error.field]!;
    field.setError(error.message);
    field.input.focus();
    status.textContent = `Check the marked field: ${error.message}`;
    return;
  }
  status.textContent = error instanceof Error ? error.message : String(error);
}

/** New connection: base URL, token (write-only), rate, start date. */
export function createConnectionView(outlet: HTMLElement, created: (connection: Connection) => void): void {
  const fields = {
    name: formField({ name: "name", label: "Name", hint: NAME_HINT, attributes: { autocomplete: "off", maxlength: "100" } }),
    base_url: formField({ name: "base_url", label: "Base URL", type: "url", required: true, hint: "The root of your CRM's source API, e.g. https://crm.example.com/api", attributes: { autocomplete: "url", inputmode: "url" } }),
    token: formField({ name: "token", label: "API token", type: "password", required: true, hint: "Stored encrypted and never shown again.", attributes: { autocomplete: "off", spellcheck: "false" } }),
    rate_limit: formField({ name: "rate_limit", label: "Rate limit", type: "number", value: "5", hint: RATE_HINT, attributes: { inputmode: "numeric", step: "1" } }),
    sync_since: formField({ name: "sync_since", label: "Start date", type: "date", hint: START_HINT }),
  };
  const status = statusLine();
  const form = h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "new-connection-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        Object.values(fields).forEach((field) => field.setError(null));
        const body: Record<string, unknown> = { base_url: fields.base_url.input.value, token: fields.token.input.value };
        if (fields.name.input.value.trim() !== "") body["name"] = fields.name.input.value;
        if (fields.rate_limit.input.value.trim() !== "") body["rate_limit"] = rateValue(fields.rate_limit.input);
        if (fields.sync_since.input.value !== "") body["sync_since"] = startValue(fields.sync_since.input);
        status.textContent = "Saving…";
        try {
          const connection = await api<Connection>("POST", CONNECTIONS, body);
          fields.token.input.value = "";
          created(connection);
        } catch (error) {
          showError(error, fields, status);
        }
      },
    },
    h("h1", { id: "new-connection-title", tabindex: "-1" }, "New connection"),
    Object.values(fields).map((field) => field.element),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create connection"), h("a", { href: "#/connections" }, "Cancel")),
    status,
  );
  outlet.replaceChildren(form);
}

/** Edit: base URL, rate and start date; only the changed fields are sent (a new start date re-reads from it). */
export function editConnectionForm(connection: Connection, saved: (connection: Connection) => void): HTMLElement {
  const startDay = connection.sync_since.slice(0, 10);
  let current = connection;
  const fields = {
    name: formField({ name: "name", label: "Name", value: connection.name ?? "", hint: `${NAME_HINT} Empty it to show the URL again.`, attributes: { autocomplete: "off", maxlength: "100" } }),
    base_url: formField({ name: "base_url", label: "Base URL", type: "url", value: connection.base_url, attributes: { autocomplete: "url" } }),
    rate_limit: formField({ name: "rate_limit", label: "Rate limit", type: "number", value: String(connection.rate_limit), hint: RATE_HINT, attributes: { inputmode: "numeric", step: "1" } }),
    sync_since: formField({ name: "sync_since", label: "Start date", type: "date", value: startDay, hint: `${START_HINT} Changing it makes the next sync read everything again from the new day.` }),
  };
  const status = statusLine();
  return h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "edit-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        Object.values(fields).forEach((field) => field.setError(null));
        const body: Record<string, unknown> = {};
        // An emptied name removes it (the API's null); "" itself would be refused.
        const name = fields.name.input.value.trim() === "" ? null : fields.name.input.value;
        if (name !== current.name) body["name"] = name;
        if (fields.base_url.input.value !== connection.base_url) body["base_url"] = fields.base_url.input.value;
        if (fields.rate_limit.input.value !== String(connection.rate_limit)) body["rate_limit"] = rateValue(fields.rate_limit.input);
        if (fields.sync_since.input.value !== startDay) body["sync_since"] = startValue(fields.sync_since.input);
        if (Object.keys(body).length === 0) {
          status.textContent = "Nothing changed.";
          return;
        }
        status.textContent = "Saving…";
        try {
          const updated = await api<Connection>("PATCH", connectionPath(connection.id), body);
          status.textContent = "Saved.";
          current = updated;
          saved(updated);
        } catch (error) {
          showError(error, fields, status);
        }
      },
    },
    h("h2", { id: "edit-title" }, "Settings"),
    Object.values(fields).map((field) => field.element),
    h("button", { type: "submit" }, "Save settings"),
    status,
  );
}

/** Token rotation: a write-only field, emptied once sent; the stored token is never shown. */
export function rotateTokenForm(connection: Connection): HTMLElement {
  const token = formField({ name: "token", label: "New API token", type: "password", hint: "Replaces the stored token; the next sync uses it.", attributes: { autocomplete: "off", spellcheck: "false" } });
  const status = statusLine();
  return h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "rotate-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        token.setError(null);
        status.textContent = "Rotating…";
        const value = token.input.value;
        // Out of the page before the request returns: nothing keeps the token around.
        token.input.value = "";
        try {
          await api<Connection>("PATCH", connectionPath(connection.id), { token: value });
          status.textContent = "Token rotated. Run a sync to use it.";
        } catch (error) {
          showError(error, { token }, status);
        }
      },
    },
    h("h2", { id: "rotate-title" }, "Rotate token"),
    token.element,
    h("button", { type: "submit" }, "Rotate token"),
    status,
  );
}
