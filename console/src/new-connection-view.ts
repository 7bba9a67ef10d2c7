import { api, CONNECTIONS, type Connection, type TestResult } from "./api";
import { h } from "./dom";
import { clearProblems, showProblems } from "./form-errors";
import { formField, statusLine } from "./form-field";
import { NAME_HINT, numberValue, RATE_HINT } from "./settings-form";
import { startDateField, startValue } from "./start-date";
import { testResultView } from "./test-result";

/**
 * A new connection: name, base URL, token (write-only), rate and start date, whose default is written out before
 * saving. "Test" calls the CRM with what was typed, nothing stored; "Save" creates it. Every problem the service
 * finds shows at once, under its field, in plain words.
 */
export function newConnectionView(outlet: HTMLElement, created: (connection: Connection) => void): void {
  const fields = {
    name: formField({ name: "name", label: "Name", hint: NAME_HINT, attributes: { autocomplete: "off", maxlength: "100" } }),
    base_url: formField({ name: "base_url", label: "Base URL", type: "url", required: true, hint: "The root address of your CRM's API, e.g. https://crm.example.com/api", attributes: { autocomplete: "url", inputmode: "url" } }),
    token: formField({ name: "token", label: "API token", type: "password", required: true, hint: "The read-only token your CRM's developers issued. Stored encrypted, never shown again.", attributes: { autocomplete: "off", spellcheck: "false" } }),
    rate_limit: formField({ name: "rate_limit", label: "Requests per second", type: "number", value: "5", hint: RATE_HINT, attributes: { inputmode: "numeric", step: "1" } }),
    sync_since: startDateField(""),
  };
  const status = statusLine();
  const testResult = h("div", { class: "test-result", role: "status", "aria-live": "polite" });
  const body = (): Record<string, unknown> => {
    const typed: Record<string, unknown> = { base_url: fields.base_url.input.value, token: fields.token.input.value };
    if (fields.name.input.value.trim() !== "") typed["name"] = fields.name.input.value;
    if (fields.rate_limit.input.value.trim() !== "") typed["rate_limit"] = numberValue(fields.rate_limit.input);
    if (fields.sync_since.input.value !== "") typed["sync_since"] = startValue(fields.sync_since.input);
    return typed;
  };
  const test = h("button", { type: "button" }, "Test");
  test.addEventListener("click", async () => {
    clearProblems(fields);
    status.textContent = "";
    test.disabled = true;
    testResult.replaceChildren(h("p", null, "Calling your CRM with what you typed (nothing is saved)…"));
    const { base_url, token, rate_limit } = body();
    try {
      testResult.replaceChildren(...testResultView(await api<TestResult>("POST", `${CONNECTIONS}/test`, { base_url, token, ...(rate_limit === undefined ? {} : { rate_limit }) })));
    } catch (error) {
      testResult.replaceChildren();
      showProblems(error, fields, status);
    } finally {
      test.disabled = false;
    }
  });
  const form = h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "new-connection-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        clearProblems(fields);
        status.textContent = "Saving…";
        try {
          const connection = await api<Connection>("POST", CONNECTIONS, body());
          fields.token.input.value = "";
          created(connection);
        } catch (error) {
          showProblems(error, fields, status);
        }
      },
    },
    h("h1", { id: "new-connection-title", tabindex: "-1" }, "New connection"),
    Object.values(fields).map((field) => field.element),
    h("p", { class: "note" }, "Test first: it calls your CRM with what you typed and saves nothing. Save creates the connection; its first sync starts when you press Sync now, or on the schedule."),
    h("div", { class: "actions" }, test, h("button", { type: "submit", class: "primary" }, "Save connection"), h("a", { href: "#/connections" }, "Cancel")),
    testResult,
    status,
  );
  outlet.replaceChildren(form);
}
