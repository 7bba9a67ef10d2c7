import { h, uid } from "./dom";
import { formField, type FormField } from "./form-field";

const DAY_FORMAT = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** The spec's default start date: 1 January of the current year (UTC), as the service sets it. */
export function defaultStartDay(now: Date): string {
  return `${now.getUTCFullYear()}-01-01`;
}

/** "1 January 2026", from a YYYY-MM-DD day. */
export function dayInWords(day: string): string {
  return DAY_FORMAT.format(new Date(`${day}T00:00:00Z`));
}

/** What the first sync will read, said before saving: the day typed, or the default written out. */
export function startDateWords(value: string, now: Date): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `The first sync reads what changed in your CRM since ${dayInWords(value)} (UTC).`;
  return `Left empty, the first sync starts on ${dayInWords(defaultStartDay(now))} (the default: 1 January this year) and reads nothing your CRM changed before then.`;
}

/** The start date's field, its line saying what it means kept up to date as the owner types. */
export function startDateField(value: string, note?: string): FormField {
  const field = formField({ name: "sync_since", label: "Start date", type: "date", value, ...(note === undefined ? {} : { hint: note }) });
  const line = h("p", { class: "hint start-words", id: uid("start-words"), "aria-live": "polite", "data-test": "start-date-words" });
  const show = () => (line.textContent = startDateWords(field.input.value, new Date()));
  field.input.addEventListener("input", show);
  field.input.addEventListener("change", show);
  show();
  field.input.setAttribute("aria-describedby", `${field.input.getAttribute("aria-describedby") ?? ""} ${line.id}`.trim());
  field.input.after(line);
  return field;
}

/** The API's sync_since for a day typed in a date field (midnight UTC); anything else is sent as typed, for the API's own rule. */
export function startValue(input: HTMLInputElement | HTMLSelectElement): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(input.value) ? `${input.value}T00:00:00Z` : input.value;
}
