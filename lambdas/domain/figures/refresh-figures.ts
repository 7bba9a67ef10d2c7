import { COLLECTIONS, type Collection } from "../core/entities";
import type { Clock } from "../core/ports/clock";
import type { Logger } from "../core/ports/logger";
import type { ConnectionFigures } from "./connection-figures";
import type { FiguresStore } from "./figures-store";
import { FunnelBuilder } from "./funnel-builder";

/** Longest a refresh reads before it gives up and keeps the figures it had: FinishRun waits for it, within its 30 s. */
export const FIGURES_TIME_LIMIT_MS = 20_000;
/** What the funnel is computed from: a run that changed none of them leaves it as it is. */
export const FUNNEL_COLLECTIONS = ["pipelines", "stages", "leads", "tasks", "calls"] as const satisfies readonly Collection[];

export interface FiguresDeps {
  readonly figures: FiguresStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** FIGURES_TIME_LIMIT_MS unless given (the bench measures a refresh whole). */
  readonly figuresTimeLimitMs?: number;
}

export interface FiguresJob {
  readonly connectionId: string;
  /** The run (or audit) whose end this is; null when computed on request. */
  readonly runId: string | null;
  /** The collections the run may have changed; "all" for an audit, or when nothing is known. */
  readonly changed: ReadonlySet<Collection> | "all";
}

export type FiguresOutcome = { readonly status: "refreshed"; readonly figures: ConnectionFigures } | { readonly status: "unchanged" | "over-time" };

/** The collections a run's rows say it wrote: rows with records (stages with pipelines, loss reasons with leads). */
export function changedBy(rows: readonly { readonly entity: string; readonly records: number }[]): Set<Collection> {
  const changed = new Set<Collection>();
  for (const row of rows) {
    if (row.records === 0 || !(COLLECTIONS as readonly string[]).includes(row.entity)) continue;
    changed.add(row.entity as Collection);
    if (row.entity === "leads") changed.add("loss_reasons");
    if (row.entity === "pipelines") changed.add("stages");
  }
  return changed;
}

/**
 * Recomputes a connection's figures from its stored records and keeps them: the funnel when the run changed one
 * of its collections (read a page at a time in no order, no document kept), the count of every other changed collection (a
 * count, no document read); what the run did not change is carried over. With no figures kept yet, everything is
 * computed. Over FIGURES_TIME_LIMIT_MS it stops and keeps the figures it had (the next run's end tries again).
 */
export async function refreshFigures(deps: FiguresDeps, job: FiguresJob): Promise<FiguresOutcome> {
  const started = deps.clock.now();
  const limit = deps.figuresTimeLimitMs ?? FIGURES_TIME_LIMIT_MS;
  const overTime = () => deps.clock.now().getTime() - started.getTime() > limit;
  const [previous, versions] = await Promise.all([deps.figures.get(job.connectionId), deps.figures.versions(job.connectionId)]);
  const changed = job.changed === "all" || previous === null ? new Set<Collection>(COLLECTIONS) : movedSince(job.changed, previous.versions, versions);
  if (changed.size === 0) return { status: "unchanged" };

  const counts = { ...(previous?.counts.collections ?? Object.fromEntries(COLLECTIONS.map((collection) => [collection, 0]))) } as Record<Collection, number>;
  let funnel = previous?.funnel;
  if (funnel === undefined || FUNNEL_COLLECTIONS.some((collection) => changed.has(collection))) {
    const builder = new FunnelBuilder(started);
    const add: Record<(typeof FUNNEL_COLLECTIONS)[number], (doc: Readonly<Record<string, unknown>>) => void> = {
      pipelines: (doc) => builder.addPipeline(doc),
      stages: (doc) => builder.addStage(doc),
      leads: (doc) => builder.addLead(doc),
      tasks: (doc) => builder.addTask(doc),
      calls: (doc) => builder.addCall(doc),
    };
    const read = await Promise.all(FUNNEL_COLLECTIONS.map((collection) => readEach(deps, job.connectionId, collection, add[collection], overTime)));
    if (read.includes(null)) return overLimit(deps, job, started);
    FUNNEL_COLLECTIONS.forEach((collection, index) => (counts[collection] = read[index]!));
    funnel = builder.build(job.runId);
  }
  const toCount = COLLECTIONS.filter((collection) => changed.has(collection) && !(FUNNEL_COLLECTIONS as readonly string[]).includes(collection));
  const counted = await Promise.all(toCount.map((collection) => deps.figures.count(job.connectionId, collection)));
  toCount.forEach((collection, index) => (counts[collection] = counted[index]!));
  if (overTime()) return overLimit(deps, job, started);

  const figures: ConnectionFigures = { counts: { computed_at: started.toISOString(), run_id: job.runId, collections: counts }, funnel, versions };
  await deps.figures.put(job.connectionId, figures);
  return { status: "refreshed", figures };
}

/** The collections each synced entity's records are stored in (stages come with their pipelines, loss reasons with leads). */
const STORED_BY: Readonly<Record<string, readonly Collection[]>> = {
  pipelines: ["pipelines", "stages"],
  users: ["users"],
  contacts: ["contacts"],
  leads: ["leads", "loss_reasons"],
  tasks: ["tasks"],
  calls: ["calls"],
  events: ["events"],
};

/**
 * Of the collections a run's rows name, those whose entity's stored version moved since the figures were kept: an
 * idle run re-reads its last window and every whole list, and stores nothing new (figures kept without versions: all).
 */
function movedSince(named: ReadonlySet<Collection>, kept: Readonly<Record<string, string>> | undefined, now: Readonly<Record<string, string>>): Set<Collection> {
  if (kept === undefined) return new Set(named);
  const moved = new Set<Collection>();
  for (const [entity, collections] of Object.entries(STORED_BY)) {
    if (kept[entity] === now[entity]) continue;
    for (const collection of collections) if (named.has(collection)) moved.add(collection);
  }
  return moved;
}

/** Hands every stored record of a collection to `add`, a page at a time; the number read, or null once over time. */
async function readEach(
  deps: FiguresDeps,
  connectionId: string,
  collection: Collection,
  add: (doc: Readonly<Record<string, unknown>>) => void,
  overTime: () => boolean,
): Promise<number | null> {
  if (overTime()) return null;
  const { records } = await deps.figures.scan(connectionId, collection, (docs) => docs.forEach(add), { stop: overTime });
  return overTime() ? null : records;
}

function overLimit(deps: FiguresDeps, job: FiguresJob, started: Date): FiguresOutcome {
  deps.logger.warn("figures not refreshed: over their time limit; the last ones are kept", {
    connection_id: job.connectionId,
    run_id: job.runId,
    ms: deps.clock.now().getTime() - started.getTime(),
  });
  return { status: "over-time" };
}
