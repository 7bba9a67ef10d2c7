import { api, CONNECTIONS, type ConnectionOverview } from "./api";
import { healthOf, type Health } from "./health";

/*
 * The workspace's overview (GET /connections: every connection with its last run and open findings), read once per
 * screen: the header's alerts and the list share one request.
 */

let pending: Promise<readonly ConnectionOverview[]> | null = null;

/** The overview as of this screen; the first caller after forgetOverview() asks the API. */
export function loadOverview(): Promise<readonly ConnectionOverview[]> {
  pending ??= api<{ data: ConnectionOverview[] }>("GET", CONNECTIONS).then((body) => body.data);
  return pending;
}

/** A new screen: the next loadOverview() reads it again. */
export function forgetOverview(): void {
  pending = null;
}

/** What the owner calls it: its name, else its URL. */
export function displayName(connection: { readonly name: string | null; readonly base_url: string }): string {
  return connection.name ?? connection.base_url;
}

export function healthOfOverview(connection: ConnectionOverview): Health {
  return healthOf(connection.last_run ?? undefined, connection.paused);
}

/** Needs a look: stale data, or a last finished run that failed. */
export function needsAttention(connection: ConnectionOverview): boolean {
  return connection.stale || connection.last_run?.status === "failed";
}

/** Stale and failing first, then by name (the URL where there is none), as a person sorts: case and accents aside. */
export function dashboardOrder(connections: readonly ConnectionOverview[]): ConnectionOverview[] {
  const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
  return [...connections].sort(
    (a, b) => Number(needsAttention(b)) - Number(needsAttention(a)) || collator.compare(displayName(a), displayName(b)) || a.id.localeCompare(b.id),
  );
}

/** The oldest data_as_of over the synced entities (what "data as of" means for the whole connection); null before any. */
export function oldestDataAsOf(connection: ConnectionOverview): string | null {
  const times = Object.values(connection.freshness)
    .map((entity) => entity.data_as_of)
    .filter((at): at is string => at !== null);
  return times.length === 0 ? null : times.reduce((oldest, at) => (Date.parse(at) < Date.parse(oldest) ? at : oldest));
}
