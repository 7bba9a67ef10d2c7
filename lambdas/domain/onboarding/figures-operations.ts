import type { ConnectionFigures, RecordCounts } from "../figures/connection-figures";
import type { Funnel } from "../figures/funnel";
import { refreshFigures } from "../figures/refresh-figures";
import { findConnection } from "./connection-operations";
import type { OnboardingDeps } from "./onboarding-deps";
import { ServiceBusyError } from "./onboarding-errors";

/**
 * The connection's figures as the sync keeps them (one GetItem): computed at each run's end, never on a request,
 * but for a connection none of whose runs has ended since figures were kept (a connection synced before this
 * release), whose first request computes them once and keeps them.
 */
/** What serving the figures needs: the connection's lookup, the figures, and (once) what computes them. */
export type FiguresRouteDeps = Pick<OnboardingDeps, "connections" | "keySpace" | "figures" | "clock" | "logger">;

async function figuresOf(deps: FiguresRouteDeps, account: string, id: string): Promise<ConnectionFigures> {
  await findConnection(deps, account, id);
  const kept = await deps.figures.get(id);
  if (kept !== null) return kept;
  const outcome = await refreshFigures(deps, { connectionId: id, runId: null, changed: "all" });
  if (outcome.status !== "refreshed") {
    throw new ServiceBusyError("the figures of this connection are not computed yet: the end of its next sync computes them");
  }
  return outcome.figures;
}

/** GET .../analytics/funnel. */
export async function getFunnel(deps: FiguresRouteDeps, account: string, id: string): Promise<Funnel> {
  return (await figuresOf(deps, account, id)).funnel;
}

/** GET .../records: stored records per collection, as counted at the end of the last run. */
export async function getRecordCounts(deps: FiguresRouteDeps, account: string, id: string): Promise<RecordCounts> {
  return (await figuresOf(deps, account, id)).counts;
}
