import { api, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { clearProblems, showProblems } from "./form-errors";
import { formField, statusLine } from "./form-field";
import { startDateField, startValue } from "./start-date";

export const NAME_HINT = "What you call this connection, shown in place of its address (up to 100 characters). Optional.";
export const RATE_HINT = "How many requests per second the service may send to your CRM (1 to 1000), as its developers decided.";

/** The audit schedules offered, in words; a connection's own other value is offered too. */
const AUDITS: readonly (readonly [string, string])[] = [
  ["off", "Never"],
  ["1d", "Every day"],
  ["7d", "Every week (the default)"],
  ["14d", "Every 2 weeks"],
  ["30d", "Every 30 days"],
];

/** A typed number as a number, else the text as typed (the API's own rule answers it). */
export function numberValue(input: HTMLInputElement | HTMLSelectElement): unknown {
  const text = input.value.trim();
  return text !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** The Settings form: name, base URL, rate, start date, audits and freshness; only what changed is sent, every problem shown at once. */
export function settingsForm(connection: Connection, saved: (connection: Connection) => void): HTMLElement {
  let current = connection;
  const startDay = connection.sync_since.slice(0, 10);
  const audits = AUDITS.some(([value]) => value === connection.audit_schedule) ? AUDITS : [...AUDITS, [connection.audit_schedule, `Every ${connection.audit_schedule.slice(0, -1)} days`] as const];
  const fields = {
    name: formField({ name: "name", label: "Name", value: connection.name ?? "", hint: `${NAME_HINT} Empty it to show the address again.`, attributes: { autocomplete: "off", maxlength: "100" } }),
    base_url: formField({ name: "base_url", label: "Base URL", type: "url", value: connection.base_url, hint: "The root address of your CRM's API.", attributes: { autocomplete: "url" } }),
    rate_limit: formField({ name: "rate_limit", label: "Requests per second", type: "number", value: String(connection.rate_limit), hint: RATE_HINT, attributes: { inputmode: "numeric", step: "1" } }),
    sync_since: startDateField(startDay, "Changing it makes the next sync read everything again from the new day."),
    audit_schedule: formField({ name: "audit_schedule", label: "Audits", options: audits.map(([value]) => value), value: connection.audit_schedule, hint: "How often the service compares everything with your CRM and repairs what syncs missed." }),
    freshness_hours: formField({
      name: "freshness_hours",
      label: "Stale after (hours)",
      type: "number",
      value: connection.freshness_hours === null ? "" : String(connection.freshness_hours),
      hint: "Data older than this counts as stale and you are told. Empty: twice the schedule's interval.",
      attributes: { inputmode: "numeric", step: "1" },
    }),
  };
  // The audit choices in words (the select's values stay the API's).
  [...(fields.audit_schedule.input as HTMLSelectElement).options].forEach((option, index) => (option.textContent = audits[index]![1]));
  const status = statusLine();
  const initial = Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, field.input.value]));
  return h(
    "form",
    {
      class: "card",
      novalidate: true,
      "aria-labelledby": "settings-title",
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        clearProblems(fields);
        const changed = (key: keyof typeof fields) => fields[key].input.value !== initial[key];
        const body: Record<string, unknown> = {};
        // An emptied name or freshness goes back to none (the API's null); "" itself would be refused.
        if (changed("name")) body["name"] = fields.name.input.value.trim() === "" ? null : fields.name.input.value;
        if (changed("base_url")) body["base_url"] = fields.base_url.input.value;
        if (changed("rate_limit")) body["rate_limit"] = numberValue(fields.rate_limit.input);
        if (changed("sync_since")) body["sync_since"] = startValue(fields.sync_since.input);
        if (changed("audit_schedule")) body["audit_schedule"] = fields.audit_schedule.input.value;
        if (changed("freshness_hours")) body["freshness_hours"] = fields.freshness_hours.input.value.trim() === "" ? null : numberValue(fields.freshness_hours.input);
        if (Object.keys(body).length === 0) {
          status.textContent = "Nothing changed.";
          return;
        }
        status.textContent = "Saving…";
        try {
          current = await api<Connection>("PATCH", connectionPath(current.id), body);
          for (const [key, field] of Object.entries(fields)) initial[key] = field.input.value;
          status.textContent = "Saved.";
          saved(current);
        } catch (error) {
          showProblems(error, fields, status);
        }
      },
    },
    h("h2", { id: "settings-title" }, "Settings"),
    Object.values(fields).map((field) => field.element),
    h("button", { type: "submit", class: "primary" }, "Save settings"),
    status,
  );
}
