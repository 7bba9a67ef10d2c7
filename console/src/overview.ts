import { api, CONNECTIONS, type ConnectionOverview } from "./api";
import type { Health } from "./health";

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

/**
 * A run under way shows first, then a paused schedule; else the last finished
 * run decides (a cancelled one says nothing about the source): failing while
 * a required entity failed in it.
 */
export function healthOfOverview(connection: ConnectionOverview): Health {
  if (connection.last_run?.status === "running") return "running";
  if (connection.paused) return "paused";
  // Only runs under way or cancelled so far: no finished run to judge by.
  if (connection.health.run_id === null) return "never synced";
  return connection.health.failed_entities.length > 0 ? "failing" : "healthy";
}

/** "Leads and contacts failed in the last run": the owner's words for what keeps a connection failing; null when nothing does. */
export function failedInWords(connection: ConnectionOverview): string | null {
  const failed = connection.health.failed_entities.filter((entity) => entity !== "stages");
  if (failed.length === 0) return null;
  const names = failed.length === 1 ? failed[0]! : `${failed.slice(0, -1).join(", ")} and ${failed.at(-1)}`;
  return `${names[0]!.toUpperCase()}${names.slice(1)} failed in the last run`;
}

/** Needs a look: stale data, or a required entity that failed in the last finished run. */
export function needsAttention(connection: ConnectionOverview): boolean {
  return connection.stale || connection.health.failed_entities.length > 0;
}

/** Stale and failing first, then by name (the URL where there is none), as a person sorts: case and accents aside. */
export function dashboardOrder(connections: readonly ConnectionOverview[]): ConnectionOverview[] {
  const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
  return [...connections].sort(
    (a, b) => Number(needsAttention(b)) - Number(needsAttention(a)) || collator.compare(displayName(a), displayName(b)) || a.id.localeCompare(b.id),
  );
}

/** The oldest data_as_of over the synced entities (what "data as of" means for the whole connection); null before any. */
export function oldestDataAsOf(connection: Pick<ConnectionOverview, "freshness">): string | null {
  const times = Object.values(connection.freshness)
    .map((entity) => entity.data_as_of)
    .filter((at): at is string => at !== null);
  return times.length === 0 ? null : times.reduce((oldest, at) => (Date.parse(at) < Date.parse(oldest) ? at : oldest));
}
