import { ApiError } from "./api";
import { plainProblem } from "./field-words";
import type { FormField } from "./form-field";

/**
 * Every broken field at once: each problem the API named goes under its field (in plain words, tied to it for
 * screen readers), the first of them takes focus, and the status line says how many; a problem of no field shown
 * here, or any other error, goes to the status line.
 */
export function showProblems(error: unknown, fields: Readonly<Record<string, FormField>>, status: HTMLElement): void {
  const problems = error instanceof ApiError ? error.problems : [];
  const shown = problems.filter((problem) => fields[problem.field] !== undefined);
  for (const problem of shown) fields[problem.field]!.setError(plainProblem(problem));
  const elsewhere = problems.filter((problem) => fields[problem.field] === undefined).map(plainProblem);
  if (shown.length > 0) {
    fields[shown[0]!.field]!.input.focus();
    status.textContent = [`Check the ${shown.length === 1 ? "marked field" : `${shown.length} marked fields`}.`, ...elsewhere].join(" ");
    return;
  }
  status.textContent = elsewhere.length > 0 ? elsewhere.join(" ") : error instanceof Error ? error.message : String(error);
}

/** Clears every field's error before the form is sent again. */
export function clearProblems(fields: Readonly<Record<string, FormField>>): void {
  for (const field of Object.values(fields)) field.setError(null);
}
