import * as v from "valibot";
import { AuditSummarySchema, type AuditSummary } from "../core/audit-summary";
import { runModeOf } from "../core/run-mode";
import { startSync } from "../sync/start-sync";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { ConflictError, NotFoundError } from "./onboarding-errors";

/** Audits listed per connection, newest first. */
export const AUDIT_LIST_LIMIT = 50;

/** The audit a request started. */
export const AuditStartedSchema = v.object({ id: v.string() });
export type AuditStarted = v.InferOutput<typeof AuditStartedSchema>;

/** GET /audits: audit summaries, newest first. */
export const AuditListSchema = v.object({ data: v.array(AuditSummarySchema) });

/** What is going on when a connection's lock is held, in words: a 409 names it. */
export function runInProgress(runId: string): string {
  return runModeOf(runId) === "audit" ? `audit ${runId} is going on` : `sync run ${runId} is going on`;
}

/**
 * Starts an audit: one per connection, never while a sync of it runs (the
 * run lock is the same), else ConflictError naming the run or audit going on.
 */
export async function startAudit(deps: OnboardingDeps, account: string, id: string): Promise<AuditStarted> {
  const connection = await findConnection(deps, account, id);
  const { runId, started } = await startSync(deps, connection, { mode: "audit" });
  if (!started) throw new ConflictError(`an audit cannot start now: ${runInProgress(runId)}`);
  return { id: runId };
}

export async function listAudits(deps: OnboardingDeps, account: string, id: string): Promise<AuditSummary[]> {
  await findConnection(deps, account, id);
  return deps.runs.listAudits(id, { limit: AUDIT_LIST_LIMIT });
}

export async function getAudit(deps: OnboardingDeps, account: string, id: string, auditId: string): Promise<AuditSummary> {
  await findConnection(deps, account, id);
  const audit = deps.keySpace.isStorableId(auditId) ? await deps.runs.getAudit(id, auditId) : null;
  if (audit === null) throw new NotFoundError(`no audit ${auditId}`);
  return audit;
}
