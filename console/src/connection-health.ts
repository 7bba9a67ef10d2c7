import type { Connection, EntityProgress, RunSummary } from "./api";
import { entityList } from "./entity-words";
import { ranToItsEnd, type Health } from "./health";

/** The entities whose failure fails a run (the spec's required endpoints; stages come with pipelines). */
export const REQUIRED = new Set(["pipelines", "stages", "users", "contacts", "leads"]);

export interface HealthReading {
  readonly health: Health;
  /** Why, in a sentence an owner reads first. */
  readonly sentence: string;
  /** The newest run that ran to its end (not one under way or cancelled), if any. */
  readonly lastFinished: RunSummary | null;
  /** Its failed entities, each with its failure (stages left out when pipelines failed too: one cause). */
  readonly failed: readonly EntityProgress[];
}

/**
 * The connection's health as the overview judges it, from its runs (newest first): a run under way shows first, then
 * a paused schedule; else the last run that ran to its end decides (a cancelled one says nothing about the source),
 * failing while a required entity failed in it; stale data is said beside any of them.
 */
export function connectionHealth(connection: Connection, runs: readonly RunSummary[]): HealthReading {
  const lastFinished = runs.find(ranToItsEnd) ?? null;
  const failedRows = (lastFinished?.entities ?? []).filter((entity) => entity.status === "failed");
  const failed = failedRows.filter((entity) => !(entity.entity === "stages" && failedRows.some((other) => other.entity === "pipelines")));
  const requiredFailed = failed.filter((entity) => REQUIRED.has(entity.entity));
  const stale = connection.stale && connection.freshness_hours !== null ? ` Some data is older than ${connection.freshness_hours} hours (stale).` : connection.stale ? " Some data is stale." : "";
  const failedWords = failed.length > 0 ? `${entityList(failed.map((entity) => entity.entity))} failed in the last run: what went wrong and the fix are below.` : "";
  if (runs[0]?.status === "running") return { health: "running", sentence: `A sync is running now.${failedWords === "" ? "" : ` ${failedWords}`}${stale}`, lastFinished, failed };
  if (connection.paused) return { health: "paused", sentence: `Paused: the schedule skips this connection; Sync now still runs it.${failedWords === "" ? "" : ` ${failedWords}`}${stale}`, lastFinished, failed };
  if (lastFinished === null) return { health: "never synced", sentence: `Not synced yet: Sync now reads your CRM for the first time.${stale}`, lastFinished, failed };
  if (requiredFailed.length > 0) return { health: "failing", sentence: `Failing: ${failedWords}${stale}`, lastFinished, failed };
  if (failed.length > 0) return { health: "healthy", sentence: `Healthy, but ${failedWords[0]!.toLowerCase()}${failedWords.slice(1)}${stale}`, lastFinished, failed };
  return { health: "healthy", sentence: stale === "" ? "Healthy: the last run succeeded and the data is fresh." : `Healthy: the last run succeeded.${stale}`, lastFinished, failed };
}
