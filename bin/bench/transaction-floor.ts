import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { TransactWriteItemsCommand, type DynamoDBClient, type TransactWriteItemsCommandInput } from "@aws-sdk/client-dynamodb";
import type { PageWrite, StageKinds } from "../../lambdas/domain/core/ports/record-store";
import { preparePage, type PreparedPage } from "../../lambdas/domain/ingestion/prepare-page";
import { dynamoDbAdapters } from "../../lambdas/adapters/dynamodb/dynamodb-adapters";
import { planPageTransactions } from "../../lambdas/adapters/dynamodb/records/page-transactions";
import { leaseUntil } from "../../lambdas/domain/sync/entity-steps";
import { newRunId } from "../../lambdas/domain/sync/run-id";

/**
 * The store's floor for one page, as the design writes it: the exact
 * TransactWriteItems inputs the production planner (planPageTransactions)
 * makes for a prepared 100-lead page (the fence on the run's lock, the
 * records, the watermark, the lease and the run's progress), sent one after
 * the other with the bare SDK client. Nothing of the service runs around
 * them: no connection read, no limiter, no fetch, no validation in the timing.
 *
 * A round writes a few such pages on a connection of its own, so every Put
 * is a new item, as in a first sync. One round runs untimed when the floor
 * is made, so the first measured one is not DynamoDB Local's warm-up. Measurements call round() between their
 * syncs, so the floor and the service's pages meet the same DynamoDB Local.
 */
export interface TransactionFloor {
  /** The transactions of one page, as planned (their count and actions are in the bench's notes). */
  readonly plan: readonly TransactWriteItemsCommandInput[];
  /** One round: ms per page, each page's transactions sent in order. */
  round(): Promise<number[]>;
}

/** Leads pages as the source serves them, prepared as the page task prepares them (same schemas, same stage kinds). */
export interface FloorSource {
  readonly url: string;
  readonly token: string;
}

export async function createTransactionFloor(options: {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly source: FloorSource;
  /** Pages per round (each a different page of leads). */
  readonly pagesPerRound: number;
}): Promise<TransactionFloor> {
  const { client, tableName } = options;
  const stageKinds = await sourceStageKinds(options.source);
  // Pages from 2 on: page 1 of an entity may carry its listing hash, which a mid-entity page never does.
  const pages: PreparedPage[] = [];
  for (let page = 2; page < 2 + options.pagesPerRound; page += 1) {
    const data = await sourcePage(options.source, "/leads", page);
    if (data.length !== 100) throw new Error(`GET /leads?page=${page} gave ${data.length} leads, not 100: the source needs more leads for the floor`);
    pages.push(preparePage({ entity: "leads", page, data, previous: null, stageKinds }));
  }
  const { runs } = dynamoDbAdapters({ client, tableName });
  const pageWrite = (connectionId: string, runId: string, page: number, prepared: PreparedPage): PageWrite => ({
    connectionId,
    records: prepared.writes,
    ...(prepared.maxCompared === null ? {} : { watermark: { entity: "leads", value: prepared.maxCompared } }),
    listing: { hasMore: true, updatedSince: "2020-01-01T00:00:00.000Z" },
    run: {
      runId,
      entity: "leads",
      page,
      records: prepared.records,
      stages: prepared.stages,
      unresolvedWonLost: prepared.unresolvedLeadIds.length,
      leaseUntil: leaseUntil(new Date()),
      committedAt: new Date().toISOString(),
    },
  });
  const plan = planPageTransactions(tableName, pageWrite("floor-plan", "plan", 2, pages[0]!));

  const round = async (): Promise<number[]> => {
    const times: number[] = [];
    for (const [index, prepared] of pages.entries()) {
      // Set-up, not timed: the run the fence checks, its lock, and the leads row the progress update counts on. A run
      // per page: pages of one run share loss reasons, whose heads a later page writes again only through the store's
      // refusal round (head-writes.ts), which a bare transaction does not have.
      const connectionId = `floor-${randomUUID()}`;
      const now = new Date();
      const runId = newRunId(now);
      const begun = await runs.begin({ connectionId, runId, startedAt: now.toISOString(), leaseUntil: leaseUntil(now) });
      if (!begun.started) throw new Error("the floor's run did not start");
      await runs.entitiesMoved(connectionId, runId, { finished: [], outcome: { status: "succeeded" }, started: ["leads"] });
      // Planned outside the timing: planning is the service's in-process work, not the store's.
      const transactions = planPageTransactions(tableName, pageWrite(connectionId, runId, index + 2, prepared));
      const started = performance.now();
      for (const input of transactions) await client.send(new TransactWriteItemsCommand(input));
      times.push(performance.now() - started);
    }
    return times;
  };
  // One round untimed first: the first transactions of a fresh DynamoDB Local (its JIT, a new table) cost many times the rest.
  await round();
  return { plan, round };
}

/** How the floor's transactions read in a note: "2 TransactWriteItems (100 + 10 actions)". */
export function describePlan(plan: readonly TransactWriteItemsCommandInput[]): string {
  return `${plan.length} TransactWriteItems (${plan.map((input) => input.TransactItems?.length ?? 0).join(" + ")} actions)`;
}

async function sourcePage(source: FloorSource, path: string, page: number): Promise<unknown[]> {
  const response = await fetch(`${source.url}${path}?limit=100&page=${page}`, {
    headers: { authorization: `Bearer ${source.token}`, accept: "application/json" },
  });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return ((await response.json()) as { data: unknown[] }).data;
}

/** The stage kinds a leads page is prepared with, from the source's /pipelines as the sync stores them. */
async function sourceStageKinds(source: FloorSource): Promise<StageKinds> {
  const pipelines = (await sourcePage(source, "/pipelines", 1)) as { id: string; stages: { id: string; kind: string }[] }[];
  return new Map(pipelines.map((pipeline) => [pipeline.id, new Map(pipeline.stages.map((stage) => [stage.id, stage.kind.toLowerCase() as "open" | "won" | "lost"]))]));
}
