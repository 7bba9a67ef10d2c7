import type { EntityOutcome } from "../../lambdas/domain/core/ports/run-store";
import type { EntityFailure } from "../../lambdas/domain/core/run-summary";
import { entityFailure } from "../../lambdas/domain/sync/entity-failure";

/** A failure naming `rule` (a catalog id) with `detail`, and the catalog's fix. */
export function failure(rule: string, detail: string, record: { id?: string; field?: string } = {}): EntityFailure {
  return entityFailure({ rule, record_id: record.id ?? null, field: record.field ?? null, detail });
}

/** A row's outcome: failed with `failure(rule, detail)`. */
export function failedWith(rule: string, detail: string): Extract<EntityOutcome, { readonly status: "failed" }> {
  return { status: "failed", failure: failure(rule, detail) };
}
