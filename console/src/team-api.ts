import { api, connectionPath } from "./api";

/** The analytics routes every role reads (docs/analytics-api.md). */
export const ANALYTICS = "/api/v1/analytics/connections";
export const analyticsPath = (id: string) => `${ANALYTICS}/${encodeURIComponent(id)}`;

export interface AnalyticsConnection {
  readonly id: string;
  readonly name: string | null;
  readonly data_as_of: string | null;
  readonly figures_as_of: string | null;
  readonly linked_to: { readonly source_user_id: string; readonly linked_by: "owner" | "email" } | null;
}

export interface RowUser {
  readonly id: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly role: string | null;
  readonly is_active: boolean;
}

export interface Signal {
  readonly rule: string;
  readonly count: number;
  readonly sample_ids: readonly string[];
  readonly message: string;
  readonly advice: string;
}

export interface ManagerFigures {
  readonly user: RowUser | null;
  readonly leads: {
    readonly open: number;
    readonly created: number;
    readonly won: number;
    readonly lost: number;
    readonly conversion: number | null;
    /** Exact: digits as a string beyond 2^53. */
    readonly revenue_won: number | string;
    readonly average_won_deal: number | string | null;
    readonly median_days_to_won: number | null;
  };
  readonly tasks: { readonly open: number; readonly overdue: number; readonly completed: number; readonly completed_by_due: number | null };
  readonly calls: { readonly total: number; readonly inbound: number; readonly outbound: number; readonly connected: number; readonly talk_seconds: number };
  readonly signals: readonly Signal[];
}

export interface FiguresList {
  readonly connection_id: string;
  readonly period: { readonly from: string; readonly to: string; readonly time_zone: string };
  readonly computed_at: string | null;
  readonly idle_days: number;
  readonly rows: readonly ManagerFigures[];
}

export interface Period {
  readonly from: string;
  readonly to: string;
}

export interface ManagerEntry {
  readonly source_user: RowUser;
  readonly member_id: string | null;
  readonly linked_by: "owner" | "email" | null;
  readonly unlinked: boolean;
  readonly summary: { readonly leads_open: number; readonly won: number; readonly revenue_won: number | string; readonly tasks_overdue: number } | null;
}

export const listAnalyticsConnections = async () => (await api<{ data: AnalyticsConnection[] }>("GET", ANALYTICS)).data;

export const figuresOf = (id: string, period: Period | null) =>
  api<FiguresList>("GET", `${analyticsPath(id)}/managers${period === null ? "" : `?from=${period.from}&to=${period.to}`}`);

/** A manager's records; `user` names the row for the owner and ROP (null: the records with no user), undefined for a MOP (their own). */
export const managerRecords = (id: string, collection: "leads" | "tasks" | "calls", user: string | null | undefined, cursor: string | null, limit = 25) => {
  const query = new URLSearchParams({ limit: String(limit) });
  if (user === null) query.set("unassigned", "true");
  else if (user !== undefined) query.set("user_id", user);
  if (cursor !== null) query.set("cursor", cursor);
  return api<{ data: Record<string, unknown>[]; next_cursor: string | null }>("GET", `${analyticsPath(id)}/${collection}?${query}`);
};

export const listManagers = async (id: string) => (await api<{ data: ManagerEntry[] }>("GET", `${connectionPath(id)}/managers`)).data;
export const linkManager = (id: string, sourceUserId: string, member: string | null) =>
  api<ManagerEntry>("PUT", `${connectionPath(id)}/managers/${encodeURIComponent(sourceUserId)}`, { user_id: member });
export const unlinkManager = (id: string, sourceUserId: string) => api<ManagerEntry>("DELETE", `${connectionPath(id)}/managers/${encodeURIComponent(sourceUserId)}`);

/** Who a row is, in words: the user's name (else id), or the records nobody is responsible for. */
export const rowName = (row: Pick<ManagerFigures, "user">): string => (row.user === null ? "No manager" : (row.user.name ?? row.user.id));

const percent = (share: number | null) => (share === null ? "—" : `${Math.round(share * 100)}%`);
/** A whole amount as the API gives it: a number, or its exact digits as a string beyond 2^53. */
const whole = (value: number | string | null) => (value === null ? "—" : typeof value === "string" ? BigInt(value).toLocaleString("en-US") : value.toLocaleString("en-US"));
const minutes = (seconds: number) => `${Math.round(seconds / 60).toLocaleString("en-US")} min`;
export const format = { percent, whole, minutes, days: (days: number | null) => (days === null ? "—" : `${days} days`) };
