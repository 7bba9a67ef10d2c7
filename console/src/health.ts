import type { RunSummary } from "./api";

export type Health = "healthy" | "failing" | "running" | "never synced";

/** A connection's health is its latest run's outcome: no run yet is "never synced". */
export function healthOf(latest: RunSummary | undefined): Health {
  if (latest === undefined) return "never synced";
  if (latest.status === "running") return "running";
  return latest.status === "succeeded" ? "healthy" : "failing";
}

export function recordsOf(run: RunSummary): number {
  return run.entities.reduce((sum, entity) => sum + entity.records, 0);
}
