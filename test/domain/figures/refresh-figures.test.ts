import { beforeAll, describe, expect, test } from "vitest";
import { DynamoDbFiguresStore } from "../../../lambdas/adapters/dynamodb/figures/dynamodb-figures-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { DynamoDbRecordScan } from "../../../lambdas/adapters/dynamodb/records/record-scan";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import type { Collection, SyncEntity } from "../../../lambdas/domain/core/entities";
import type { RecordWrite } from "../../../lambdas/domain/core/ports/record-store";
import type { FiguresStore } from "../../../lambdas/domain/figures/figures-store";
import { changedBy, refreshFigures, type FiguresDeps } from "../../../lambdas/domain/figures/refresh-figures";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import { FAR_LEASE, PAGE_COMMITTED_AT, runHoldingLock } from "../../builders/page-runs";
import { useTestTable } from "../../support/dynamodb";
import { ManualClock } from "../../support/manual-clock";

/**
 * The figures follow what a run stored, and only what it stored: a run that changed nothing reads nothing, one that
 * changed only contacts counts contacts and keeps the funnel, and a refresh over its time limit keeps what it had.
 * Real stores on DynamoDB Local; the clock is a manual one that the record reads move.
 */
const table = useTestTable();
const CONNECTION = "conn-figures";
const records = new DynamoDbRecordStore(table);
const figures = new DynamoDbFiguresStore(table, new DynamoDbRecordScan(table, records));
let runId = "";

/** The figures store, counting the record scans per collection; each scan moves `clock` by `msPerRead` first. */
function countingFigures(clock: ManualClock, msPerRead = 0) {
  const reads = new Map<Collection, number>();
  const store: FiguresStore = {
    get: (connectionId) => figures.get(connectionId),
    put: (connectionId, kept) => figures.put(connectionId, kept),
    versions: (connectionId) => figures.versions(connectionId),
    count: (connectionId, collection) => figures.count(connectionId, collection),
    scan: async (connectionId, collection, visit, options) => {
      reads.set(collection, (reads.get(collection) ?? 0) + 1);
      await clock.sleep(msPerRead);
      return figures.scan(connectionId, collection, visit, options);
    },
  };
  return { store, reads };
}

function deps(store: FiguresStore, clock: ManualClock, limit?: number): FiguresDeps {
  return { figures: store, clock, logger: createMemoryLogger(), ...(limit === undefined ? {} : { figuresTimeLimitMs: limit }) };
}

let watermarkSecond = 0;

/** A page of `writes`; with `moves`, its commit moves that entity's watermark, as a sync's page storing a change does. */
async function store(writes: RecordWrite[], moves?: SyncEntity): Promise<void> {
  watermarkSecond += 1;
  await records.commitPage({
    connectionId: CONNECTION,
    records: writes,
    ...(moves === undefined ? {} : { watermark: { entity: moves, value: new Date(Date.UTC(2026, 0, 1, 0, 0, watermarkSecond)).toISOString() } }),
    run: { runId, entity: "leads", page: watermarkSecond, records: writes.length, stages: 0, unresolvedWonLost: 0, leaseUntil: FAR_LEASE, committedAt: PAGE_COMMITTED_AT },
  });
}

beforeAll(async () => {
  runId = newRunId(new Date(PAGE_COMMITTED_AT));
  await runHoldingLock(new DynamoDbRunStore(table), CONNECTION, runId);
  await store([
    { collection: "pipelines", key: ["p"], doc: { id: "p", name: "Sales", sort: 1 } },
    { collection: "stages", key: ["p", "s"], doc: { id: "s", name: "New", kind: "open", sort: 1, pipeline_id: "p" } },
    { collection: "leads", key: ["l1"], doc: { id: "l1", pipeline_id: "p", stage_id: "s", is_won: false, is_lost: false, is_deleted: false } },
    { collection: "contacts", key: ["c1"], doc: { id: "c1" } },
  ]);
});

describe("refreshFigures", () => {
  test("with no figures kept, everything is computed: the funnel and every collection's count", async () => {
    const clock = new ManualClock();
    const outcome = await refreshFigures(deps(figures, clock), { connectionId: CONNECTION, runId: "run-1", changed: new Set() });
    expect(outcome.status).toBe("refreshed");
    const kept = await figures.get(CONNECTION);
    expect(kept?.counts.collections).toMatchObject({ pipelines: 1, stages: 1, leads: 1, contacts: 1, users: 0, events: 0 });
    expect(kept?.funnel.pipelines[0]?.stages[0]).toMatchObject({ id: "s", leads: 1, reached: 1 });
    expect(kept?.funnel.run_id).toBe("run-1");
  });

  test("a run that changed nothing reads nothing and keeps the figures", async () => {
    const clock = new ManualClock();
    const before = await figures.get(CONNECTION);
    const { store: counted, reads } = countingFigures(clock);
    const outcome = await refreshFigures(deps(counted, clock), { connectionId: CONNECTION, runId: "run-2", changed: changedBy([{ entity: "leads", records: 0 }, { entity: "contacts", records: 0 }]) });
    expect(outcome.status).toBe("unchanged");
    expect(reads.size).toBe(0);
    expect(await figures.get(CONNECTION)).toEqual(before);
  });

  test("a run that stored nothing new reads nothing: its rows name leads it re-read, but no entity's stored version moved", async () => {
    const clock = new ManualClock();
    const { store: counted, reads } = countingFigures(clock);
    const before = await figures.get(CONNECTION);
    const outcome = await refreshFigures(deps(counted, clock), { connectionId: CONNECTION, runId: "run-idle", changed: changedBy([{ entity: "leads", records: 5 }, { entity: "pipelines", records: 3 }]) });
    expect(outcome.status).toBe("unchanged");
    expect(reads.size).toBe(0);
    expect(await figures.get(CONNECTION)).toEqual(before);
  });

  test("a run that changed only contacts counts contacts and keeps the funnel as it was", async () => {
    await store([{ collection: "contacts", key: ["c2"], doc: { id: "c2" } }], "contacts");
    const clock = new ManualClock();
    const before = await figures.get(CONNECTION);
    const { store: counted, reads } = countingFigures(clock);
    const outcome = await refreshFigures(deps(counted, clock), { connectionId: CONNECTION, runId: "run-3", changed: changedBy([{ entity: "contacts", records: 1 }]) });
    expect(outcome.status).toBe("refreshed");
    expect(reads.size).toBe(0);
    const kept = await figures.get(CONNECTION);
    expect(kept?.counts.collections.contacts).toBe(2);
    expect(kept?.counts.run_id).toBe("run-3");
    expect(kept?.funnel).toEqual(before?.funnel);
  });

  test("a run that changed leads recomputes the funnel; loss reasons are counted with the leads", async () => {
    expect([...changedBy([{ entity: "leads", records: 3 }, { entity: "pipelines", records: 1 }])].sort()).toEqual(["leads", "loss_reasons", "pipelines", "stages"]);
    await store([{ collection: "leads", key: ["l2"], doc: { id: "l2", pipeline_id: "p", stage_id: "s", is_won: false, is_lost: false, is_deleted: false } }], "leads");
    const clock = new ManualClock();
    await refreshFigures(deps(figures, clock), { connectionId: CONNECTION, runId: "run-4", changed: changedBy([{ entity: "leads", records: 1 }]) });
    const kept = await figures.get(CONNECTION);
    expect(kept?.funnel.pipelines[0]?.stages[0]).toMatchObject({ leads: 2, reached: 2 });
    expect(kept?.counts.collections.leads).toBe(2);
  });

  test("over its time limit it stops, says so in the log, and keeps the figures it had", async () => {
    const clock = new ManualClock();
    const before = await figures.get(CONNECTION);
    // Each read takes 1 s on this clock; the limit is 2 s: the funnel's reads cannot finish within it.
    const { store: slow } = countingFigures(clock, 1_000);
    const d = deps(slow, clock, 2_000);
    const outcome = await refreshFigures(d, { connectionId: CONNECTION, runId: "run-5", changed: "all" });
    expect(outcome.status).toBe("over-time");
    expect(await figures.get(CONNECTION)).toEqual(before);
    expect((d.logger as ReturnType<typeof createMemoryLogger>).lines.map((line) => line["message"])).toContain("figures not refreshed: over their time limit; the last ones are kept");
  });
});
