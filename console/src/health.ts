import type { RunSummary } from "./api";

export type Health = "healthy" | "failing" | "running" | "paused" | "never synced" | "cancelled";

/** A run's outcome as a badge: a run under way shows first, then a paused schedule, then no run yet; a cancelled run is no failure. */
export function healthOf(latest: Pick<RunSummary, "status"> | undefined, paused = false): Health {
  if (latest?.status === "running") return "running";
  if (paused) return "paused";
  if (latest === undefined) return "never synced";
  if (latest.status === "cancelled") return "cancelled";
  return latest.status === "succeeded" ? "healthy" : "failing";
}

/** A run that ran to its end (succeeded or failed), not one under way or cancelled: what a later run is compared with. */
export function ranToItsEnd(run: Pick<RunSummary, "status">): boolean {
  return run.status === "succeeded" || run.status === "failed";
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
