import { session, signOut } from "./session";

/** The onboarding API's base path for custom connections. */
export const CONNECTIONS = "/api/v1/crm/custom/connections";

/** A broken rule of one field, as a 422 names it. */
export interface FieldProblem {
  readonly field: string;
  readonly rule: string;
}

/** An answer other than 2xx, with the API's own error body: code, message and, for bad input, every broken field. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly rule?: string,
    readonly problems: readonly FieldProblem[] = field !== undefined && rule !== undefined ? [{ field, rule }] : [],
  ) {
    super(message);
  }
}

/** A 401: the session is gone; the page has already been sent back to sign in. */
export class SessionExpiredError extends Error {
  override readonly name = "SessionExpiredError";
}

export interface Connection {
  readonly id: string;
  /** The owner's name for it (1 to 100 characters), shown in place of the URL; null when none. */
  readonly name: string | null;
  readonly base_url: string;
  readonly rate_limit: number;
  readonly sync_since: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** The owner paused the schedule: the dispatcher skips it; "Sync now" still runs. */
  readonly paused: boolean;
  /** The dispatcher's interval (`1h`, `off`), or null when the API was not told it. */
  readonly schedule: string | null;
  /** Per synced entity: when its last page committed (null: never), and its watermark. */
  readonly freshness: Readonly<Record<string, { readonly data_as_of: string | null; readonly watermark: string | null }>>;
  /** A required entity's data is older than freshness_hours. */
  readonly stale: boolean;
  readonly freshness_hours: number | null;
  /** How often the schedule audits it: `off`, or every N days (`7d`). */
  readonly audit_schedule: string;
  /** Days without a task, call or event after which an open lead counts as idle (the managers' coaching). */
  readonly idle_days: number;
}

/** An item of GET /connections: the connection, its health, its newest sync run in brief, and its open data-quality findings. */
export interface ConnectionOverview extends Connection {
  /** Healthy: not stale, and no required entity failed in the last finished (not cancelled) run, which `failed_entities` otherwise names. */
  readonly health: { readonly healthy: boolean; readonly run_id: string | null; readonly failed_entities: readonly string[] };
  readonly last_run: {
    readonly id: string;
    readonly status: "running" | "succeeded" | "failed" | "cancelled";
    readonly started_at: string;
    readonly finished_at: string | null;
    readonly records: number;
    readonly failed_entities: readonly string[];
  } | null;
  /** The newest successful run's findings: (entity, rule) pairs, errors among them, records, and pairs new since the one before. */
  readonly open_findings: { readonly run_id: string; readonly findings: number; readonly errors: number; readonly records: number; readonly new: number } | null;
}

/** One event the service sent about a connection (GET /notifications), newest first. */
export interface Notification {
  readonly id: string;
  readonly detail_type: "Sync Run Finished" | "Audit Finished" | "Connection Stale";
  readonly connection_id: string;
  readonly at: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** The workspace's notifications. */
export const NOTIFICATIONS = "/api/v1/crm/custom/notifications";

export interface TestResult {
  readonly reachable: boolean;
  readonly authenticated: boolean;
  readonly detail: string;
  readonly pipelines_found?: number;
}

export interface EntityProgress {
  readonly entity: string;
  readonly status: "pending" | "running" | "succeeded" | "failed" | "cancelled";
  readonly pages: number;
  readonly records: number;
  readonly error: string | null;
  /** Why it failed: the catalog's rule, the record and field when one is at fault, what happened, and the fix; null unless it failed. */
  readonly failure: EntityFailure | null;
  /** Each wait before a page was tried again, oldest first (docs/console.md, run). */
  readonly waits: readonly RunWait[];
  /** The silent rules of the spec its records hit in the run. */
  readonly findings: readonly RunFinding[];
}

/** Why an entity of a run failed. */
export interface EntityFailure {
  readonly rule: string;
  readonly record_id: string | null;
  readonly field: string | null;
  readonly detail: string;
  readonly fix: string;
}

/** Records of an entity that hit one silent rule in a run. */
export interface RunFinding {
  readonly rule: string;
  readonly severity: "error" | "warning";
  readonly count: number;
  readonly sample_ids: readonly string[];
  readonly detail: string;
}

/** A wait the sync made (or is making) before trying a page again: after a 429, or after a 5xx/timeout. */
export interface RunWait {
  readonly kind: "throttled" | "retry";
  readonly page: number;
  readonly attempt: number;
  readonly seconds: number;
  readonly retry_after_seconds: number | null;
  readonly at: string;
  readonly detail: string | null;
  /** The catalog's rule the failed try broke (retries); null for a 429's wait. */
  readonly rule: string | null;
}

/** Retries of one page before its entity fails (the service's RETRY_BACKOFF_SECONDS: 1, 2, 4, 8, 16 s). */
export const MAX_RETRIES = 5;

export interface RunSummary {
  readonly id: string;
  readonly status: "running" | "succeeded" | "failed" | "cancelled";
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly unresolved_won_lost: number;
  readonly entities: readonly EntityProgress[];
}

export interface RecordsPage {
  readonly data: readonly Record<string, unknown>[];
  readonly next_cursor: string | null;
}

/** Collections the records endpoint serves, in sync order. */
export const COLLECTIONS = ["pipelines", "stages", "users", "contacts", "leads", "tasks", "calls", "events", "loss_reasons"] as const;

/** Entities with a watermark, which a reset sends back to the start date (pipelines and users are read in full every run). */
export const RESETTABLE = ["contacts", "leads", "tasks", "calls", "events"] as const;

/** GET .../records: stored records per collection, counted at the end of the last run. */
export interface RecordCounts {
  readonly computed_at: string;
  readonly run_id: string | null;
  readonly collections: Readonly<Record<(typeof COLLECTIONS)[number], number>>;
}

export interface ResetResult {
  readonly reset: readonly string[];
  readonly run: { readonly id: string; readonly status: "running" } | null;
}

let apiBase = "";
/** The API's origin from /config.json's apiBaseUrl; "" (this origin) by default. */
export function setApiBase(base: string): void {
  apiBase = base;
}

let onSignedOut: () => void = () => undefined;
/** Where a 401 sends the owner: the sign-in page. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** One request to the API, with the in-memory session token on it. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = session()?.token;
  if (token) headers["authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${apiBase}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (response.status === 401) {
    signOut();
    onSignedOut();
    throw new SessionExpiredError("your session ended: sign in again");
  }
  const text = await response.text();
  const parsed: unknown = text === "" ? null : safeJson(text);
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; field?: string; rule?: string; errors?: FieldProblem[] } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? "http_error",
      error?.message ?? answeredWords(response.status),
      error?.field,
      error?.rule,
      ...(error?.errors === undefined ? [] : [error.errors]),
    );
  }
  return parsed as T;
}

/** What a person reads when the API said nothing more than its status. */
function answeredWords(status: number): string {
  if (status === 403) return "Only the workspace owner can do this.";
  if (status === 404) return "Not found: it may have been deleted.";
  if (status >= 500) return "The service could not answer just now. Try again in a few seconds.";
  return "The service refused this request.";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export const connectionPath = (id: string) => `${CONNECTIONS}/${encodeURIComponent(id)}`;

/** One broken rule at one endpoint; `detail` says what came back and how to fix it. */
export interface PreflightFinding {
  readonly rule: string;
  readonly severity: "error" | "warning";
  readonly endpoint: string;
  readonly detail: string;
  readonly spec: string;
  readonly request: string;
}

/** A conformance run of the connection's source (POST/GET .../preflight), as far as it has got. */
export interface PreflightRun {
  readonly id: string;
  readonly base_url: string;
  readonly status: "running" | "succeeded" | "failed";
  readonly conforms: boolean;
  readonly findings: readonly PreflightFinding[];
  readonly checked: readonly string[];
  readonly progress: { readonly endpoint: string; readonly page: number } | null;
  readonly error: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
}
