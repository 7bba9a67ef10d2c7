import * as v from "valibot";
import { ReportSchema } from "./report";

/**
 * A conformance run the service made for a connection (POST .../preflight):
 * the kit's report, as far as it has got, with the run's own state. The API
 * answers this shape while the run goes on and when it is done.
 */
export const PREFLIGHT_STATUSES = ["running", "succeeded", "failed"] as const;

export const PreflightRunSchema = v.object({
  ...ReportSchema.entries,
  id: v.string(),
  connection_id: v.string(),
  /** running; succeeded when the kit ran to the end (whatever it found); failed when it could not run. */
  status: v.picklist(PREFLIGHT_STATUSES),
  started_at: v.string(),
  finished_at: v.nullable(v.string()),
  /** Where the kit is while it runs: the endpoint and page it is checking. */
  progress: v.nullable(v.object({ endpoint: v.string(), page: v.number() })),
  /** Why the kit could not run (status failed): one line saying what to do; never the token. */
  error: v.nullable(v.string()),
});
export type PreflightRun = v.InferOutput<typeof PreflightRunSchema>;

/** A run as it starts: running, nothing checked or found yet (it conforms until a rule says otherwise). */
export function startedPreflightRun(id: string, connection: { readonly id: string; readonly base_url: string }, startedAt: Date): PreflightRun {
  return {
    id,
    connection_id: connection.id,
    base_url: connection.base_url,
    status: "running",
    started_at: startedAt.toISOString(),
    finished_at: null,
    progress: null,
    error: null,
    conforms: true,
    findings: [],
    checked: [],
  };
}

/** Where the service keeps its conformance runs (DynamoDB in AWS and locally). */
export interface PreflightStore {
  /** Creates or replaces the run. */
  put(run: PreflightRun): Promise<void>;
  get(connectionId: string, id: string): Promise<PreflightRun | null>;
}

/** What a launched run needs to find its connection. Small: travels in a Lambda event. */
export const PreflightJobSchema = v.object({
  business_account_id: v.pipe(v.string(), v.nonEmpty()),
  connection_id: v.pipe(v.string(), v.nonEmpty()),
  preflight_id: v.pipe(v.string(), v.nonEmpty()),
});
export type PreflightJob = v.InferOutput<typeof PreflightJobSchema>;

/** Runs a job away from the request that asked for it: an async Lambda invoke in AWS, a promise locally. */
export interface PreflightLauncher {
  launch(job: PreflightJob): Promise<void>;
}
