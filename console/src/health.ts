import type { RunSummary } from "./api";

export type Health = "healthy" | "failing" | "running" | "paused" | "never synced";

/** A connection's health is its latest run's outcome: a run under way shows first, then a paused schedule, then no run yet. */
export function healthOf(latest: Pick<RunSummary, "status"> | undefined, paused = false): Health {
  if (latest?.status === "running") return "running";
  if (paused) return "paused";
  if (latest === undefined) return "never synced";
  return latest.status === "succeeded" ? "healthy" : "failing";
}

export function recordsOf(run: RunSummary): number {
  return run.entities.reduce((sum, entity) => sum + entity.records, 0);
}

/** The next scheduled run as honestly as it is known: the interval, not a time (neither scheduler exposes it). */
export function nextRunOf(connection: { readonly paused: boolean; readonly schedule: string | null }): string {
  if (connection.paused) return "paused: only \"Sync now\" runs it";
  if (connection.schedule === null) return "on the service's schedule";
  if (connection.schedule === "off") return "no schedule: only \"Sync now\"";
  return `within ${connection.schedule} (every ${connection.schedule})`;
}
