import { h, uid } from "./dom";

export interface FormField {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement | HTMLSelectElement;
  /** Shows a rule under the field, tied to it by aria-describedby; null clears it. */
  setError(message: string | null): void;
}

/** A labelled input with its hint and its error line. */
export function formField(options: {
  readonly name: string;
  readonly label: string;
  readonly type?: string;
  readonly value?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly options?: readonly string[];
  readonly attributes?: Record<string, string | boolean>;
}): FormField {
  const id = uid(options.name);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const input: HTMLInputElement | HTMLSelectElement = options.options
    ? h("select", { id, name: options.name }, options.options.map((value) => h("option", { value }, value)))
    : h("input", {
        id,
        name: options.name,
        type: options.type ?? "text",
        required: options.required ?? false,
        ...(options.attributes ?? {}),
      });
  if (options.value !== undefined) input.value = options.value;
  input.setAttribute("aria-describedby", options.hint ? `${hintId} ${errorId}` : errorId);
  const error = h("p", { id: errorId, class: "field-error", hidden: true });
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: id }, options.label),
    options.hint ? h("p", { id: hintId, class: "hint" }, options.hint) : null,
    input,
    error,
  );
  return {
    element,
    input,
    setError(message) {
      error.textContent = message ?? "";
      error.hidden = message === null;
      if (message === null) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
    },
  };
}

/** A live status line for a form's outcome (screen readers announce it). */
export function statusLine(): HTMLParagraphElement {
  return h("p", { class: "form-status", role: "status", "aria-live": "polite" });
}
