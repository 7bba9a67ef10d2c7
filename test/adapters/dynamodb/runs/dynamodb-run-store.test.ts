import { randomUUID } from "node:crypto";
import { GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { SUMMARY_ENTITIES } from "../../../../lambdas/domain/core/entities";
import type { NewRun } from "../../../../lambdas/domain/core/ports/run-store";
import type { RunWait } from "../../../../lambdas/domain/core/run-summary";
import { DynamoDbRunStore, RunAlreadyExistsError, RunNotFoundError } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { LOCK_SORT_KEY, MAX_RECORDED_WAITS, runExpiresAt, runLockPartitionKey, runPartitionKey, runSortKey } from "../../../../lambdas/adapters/dynamodb/runs/run-item/run-keys";
import { readItem, useTestTable } from "../../../support/dynamodb";
import { failedWith, failure } from "../../../builders/entity-failures";

const table = useTestTable();
const store = new DynamoDbRunStore(table);


const newConnection = () => `conn-${randomUUID()}`;

function newRun(connectionId: string, runId: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    connectionId,
    runId,
    startedAt: "2026-11-21T16:18:00.123Z",
    leaseUntil: "2026-11-21T16:23:00.123Z",
    ...extra,
  };
}

const lockItem = (connectionId: string) => readItem(table, runLockPartitionKey(connectionId), LOCK_SORT_KEY);

async function runItemCount(connectionId: string): Promise<number> {
  const out = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: runPartitionKey(connectionId) } },
      ConsistentRead: true,
    }),
  );
  return out.Count ?? 0;
}

const RUN_A = "20261121T161800123Z-aaaaaa";
const RUN_B = "20261121T162000456Z-bbbbbb";
const RUN_C = "20261121T162500789Z-cccccc";

describe("begin", () => {
  test("begin creates a running run with every summary entity pending, in order", async () => {
    const connectionId = newConnection();
    expect(await store.begin(newRun(connectionId, RUN_A))).toEqual({ started: true });
    expect(await store.get(connectionId, RUN_A)).toEqual({
      id: RUN_A,
      connection_id: connectionId,
      status: "running",
      started_at: "2026-11-21T16:18:00.123Z",
      finished_at: null,
      unresolved_won_lost: 0,
      entities: SUMMARY_ENTITIES.map((entity) => ({ entity, status: "pending", pages: 0, records: 0, error: null, failure: null, waits: [], findings: [] })),
    });
    expect((await store.get(connectionId, RUN_A))?.entities).toHaveLength(8);
  });

  test("entityWaited appends waits in order, keeps at most MAX_RECORDED_WAITS, cuts the detail to 300 characters, and is a no-op once the run finished", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    const wait = (attempt: number): RunWait => ({
      kind: attempt % 2 === 0 ? "retry" : "throttled",
      page: 3,
      attempt,
      seconds: attempt * 2,
      retry_after_seconds: attempt % 2 === 0 ? null : attempt,
      at: "2026-11-21T16:19:00.000Z",
      detail: attempt === 1 ? "x".repeat(400) : null,
      rule: attempt % 2 === 0 ? "source.server-errors-recover" : null,
    });
    for (let attempt = 1; attempt <= MAX_RECORDED_WAITS + 3; attempt += 1) await store.entityWaited(connectionId, RUN_A, "leads", wait(attempt));
    const waits = (await store.get(connectionId, RUN_A))!.entities.find((e) => e.entity === "leads")!.waits;
    expect(waits).toHaveLength(MAX_RECORDED_WAITS);
    expect(waits.slice(1)).toEqual(Array.from({ length: MAX_RECORDED_WAITS - 1 }, (_, i) => wait(i + 2)));
    expect(waits[0]).toEqual({ ...wait(1), detail: "x".repeat(300) });

    await store.finish(connectionId, RUN_A, { status: "succeeded", finishedAt: "2026-11-21T16:30:00.000Z" });
    await store.entityWaited(connectionId, RUN_A, "tasks", wait(1));
    expect((await store.get(connectionId, RUN_A))!.entities.find((e) => e.entity === "tasks")!.waits).toEqual([]);
  });

  test("begin takes the lock with the run id, no execution and the lease", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    expect(await lockItem(connectionId)).toMatchObject({
      runId: { S: RUN_A },
      executionRef: { NULL: true },
      leaseUntil: { S: "2026-11-21T16:23:00.123Z" },
    });
  });

  test("a second begin while the lock is held returns the holder and writes nothing", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.setExecution(connectionId, RUN_A, "arn:execution:a");

    const second = await store.begin(newRun(connectionId, RUN_B, { leaseUntil: "2026-11-21T17:00:00.000Z" }));

    expect(second).toEqual({
      started: false,
      holder: { runId: RUN_A, executionRef: "arn:execution:a", leaseUntil: "2026-11-21T16:23:00.123Z" },
    });
    expect(await store.get(connectionId, RUN_B)).toBeNull();
    expect(await runItemCount(connectionId)).toBe(1);
    expect((await lockItem(connectionId))?.["runId"]).toEqual({ S: RUN_A });
  });

  test("an expired lease is not taken by begin on its own", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A, { leaseUntil: "2000-01-01T00:00:00.000Z" }));
    const second = await store.begin(newRun(connectionId, RUN_B));
    expect(second).toMatchObject({ started: false, holder: { runId: RUN_A } });
    expect(await store.get(connectionId, RUN_B)).toBeNull();
  });

  test("begin replacing the dead holder's run id takes the lock and creates the run", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A, { leaseUntil: "2000-01-01T00:00:00.000Z" }));

    const replaced = await store.begin(newRun(connectionId, RUN_B), { replacing: RUN_A });

    expect(replaced).toEqual({ started: true });
    expect(await lockItem(connectionId)).toMatchObject({ runId: { S: RUN_B }, executionRef: { NULL: true } });
    expect((await store.get(connectionId, RUN_B))?.status).toBe("running");
    // The replaced run's summary is left to the caller.
    expect((await store.get(connectionId, RUN_A))?.status).toBe("running");
  });

  test("begin replacing a run id that is not the holder returns the real holder and writes nothing", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    const attempt = await store.begin(newRun(connectionId, RUN_C), { replacing: RUN_B });
    expect(attempt).toMatchObject({ started: false, holder: { runId: RUN_A } });
    expect(await store.get(connectionId, RUN_C)).toBeNull();
  });

  test("begin replacing a holder that has already released the lock takes the free lock", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.finish(connectionId, RUN_A, { status: "failed", finishedAt: "2026-11-21T16:19:00.000Z" });
    expect(await store.begin(newRun(connectionId, RUN_B), { replacing: RUN_A })).toEqual({ started: true });
  });

  test("begin with a run id that already exists throws and does not take the free lock", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.finish(connectionId, RUN_A, { status: "succeeded", finishedAt: "2026-11-21T16:19:00.000Z" });
    await expect(store.begin(newRun(connectionId, RUN_A))).rejects.toThrow(RunAlreadyExistsError);
    expect(await lockItem(connectionId)).toBeUndefined();
    expect((await store.get(connectionId, RUN_A))?.status).toBe("succeeded");
  });

  test("locks of different connections are independent", async () => {
    const [one, two] = [newConnection(), newConnection()];
    expect(await store.begin(newRun(one, RUN_A))).toEqual({ started: true });
    expect(await store.begin(newRun(two, RUN_A))).toEqual({ started: true });
  });

  test("concurrent begins: exactly one starts, the others see it as holder", async () => {
    const connectionId = newConnection();
    const runIds = Array.from({ length: 5 }, (_, index) => `20261121T16180000${index}Z-race${index}`);
    const results = await Promise.all(runIds.map((runId) => store.begin(newRun(connectionId, runId))));
    const winners = results.filter((result) => result.started);
    expect(winners).toHaveLength(1);
    const winner = runIds[results.findIndex((result) => result.started)];
    for (const result of results) if (!result.started) expect(result.holder.runId).toBe(winner);
    expect(await runItemCount(connectionId)).toBe(1);
  });
});

describe("heldLocks (the tick's count of live runs)", () => {
  test("heldLocks returns the locks held among the connections asked, past BatchGetItem's 100 keys, free and unknown connections left out, a connection asked twice counted once", async () => {
    const connections = Array.from({ length: 230 }, newConnection);
    const holding = connections.filter((_, index) => index % 3 === 0);
    for (const connectionId of holding) expect(await store.begin(newRun(connectionId, RUN_A))).toEqual({ started: true });
    await store.finish(holding[0]!, RUN_A, { status: "succeeded", finishedAt: "2026-11-21T16:19:00.000Z" });
    await store.setExecution(holding[1]!, RUN_A, "exec-1");

    const { locks: held, damaged } = await store.heldLocks([...connections, holding[2]!, holding[2]!]);

    expect(damaged).toBe(0);
    expect(held).toHaveLength(holding.length - 1);
    expect(held.every((lock) => lock.runId === RUN_A && lock.leaseUntil === "2026-11-21T16:23:00.123Z")).toBe(true);
    expect(held.filter((lock) => lock.executionRef === "exec-1")).toHaveLength(1);
    expect(await store.heldLocks([])).toEqual({ locks: [], damaged: 0 });
  });

  test("a damaged run lock does not fail heldLocks: it is counted as damaged, the others still returned", async () => {
    const [damagedOne, fine] = [newConnection(), newConnection()];
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk: { S: runLockPartitionKey(damagedOne) }, sk: { S: LOCK_SORT_KEY }, runId: { N: "7" } },
      }),
    );
    expect(await store.begin(newRun(fine, RUN_A))).toEqual({ started: true });

    const { locks, damaged } = await store.heldLocks([damagedOne, fine]);

    expect(damaged).toBe(1);
    expect(locks.map((lock) => lock.runId)).toEqual([RUN_A]);
  });
});

describe("progress", () => {
  test("entityStarted marks the entity running and leaves the others pending", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.entityStarted(connectionId, RUN_A, "contacts");
    const statuses = (await store.get(connectionId, RUN_A))!.entities.map((e) => [e.entity, e.status]);
    expect(statuses).toEqual(SUMMARY_ENTITIES.map((entity) => [entity, entity === "contacts" ? "running" : "pending"]));
  });

  test("entityFinished sets the status and keeps pages and records", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.entityStarted(connectionId, RUN_A, "tasks");
    await store.entityFinished(connectionId, RUN_A, "tasks", { status: "succeeded" });
    expect((await store.get(connectionId, RUN_A))!.entities.find((e) => e.entity === "tasks")).toEqual({
      entity: "tasks",
      status: "succeeded",
      pages: 0,
      records: 0,
      error: null,
      failure: null,
      waits: [],
      findings: [],
    });
  });

  test("entityFinished keeps the failure (rule, record, field, fix) and cuts its detail, the row's error, to 300 characters", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    const stored = { ...failure("call.duration-integer", "é".repeat(250) + "😀".repeat(200)), record_id: "c-1", field: "duration_seconds" };
    await store.entityFinished(connectionId, RUN_A, "calls", { status: "failed", failure: stored });
    const calls = (await store.get(connectionId, RUN_A))!.entities.find((e) => e.entity === "calls")!;
    expect(calls.status).toBe("failed");
    expect([...calls.error!]).toHaveLength(300);
    expect(calls.error).toBe("é".repeat(250) + "😀".repeat(50));
    expect(calls.failure).toEqual({ ...stored, detail: calls.error });
  });

  test("progress on a run that does not exist throws RunNotFoundError and creates nothing", async () => {
    const connectionId = newConnection();
    await expect(store.entityStarted(connectionId, RUN_A, "leads")).rejects.toThrow(RunNotFoundError);
    await expect(store.entityFinished(connectionId, RUN_A, "leads", failedWith("service.completes", "x"))).rejects.toThrow(
      RunNotFoundError,
    );
    await expect(store.finish(connectionId, RUN_A, { status: "failed", finishedAt: "2026-11-21T16:19:00.000Z" })).rejects.toThrow(
      RunNotFoundError,
    );
    expect(await runItemCount(connectionId)).toBe(0);
  });
});

describe("a finished run", () => {
  test("the first finish wins: a superseded run's later updates change nothing", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.entityFinished(connectionId, RUN_A, "leads", failedWith("service.completes", "the run stopped without finishing"));
    await store.finish(connectionId, RUN_A, { status: "failed", finishedAt: "2026-11-21T16:19:00.000Z" });
    const reported = await store.get(connectionId, RUN_A);

    await store.entityStarted(connectionId, RUN_A, "tasks");
    await store.entityFinished(connectionId, RUN_A, "leads", { status: "succeeded" });
    await store.finish(connectionId, RUN_A, { status: "succeeded", finishedAt: "2026-11-21T17:00:00.000Z" });
    expect(await store.get(connectionId, RUN_A)).toEqual(reported);
  });
});

describe("lock upkeep", () => {
  test("handOver forgets the execution and renews the lease while the run continues in a fresh execution", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.setExecution(connectionId, RUN_A, "exec-1");
    await store.handOver(connectionId, RUN_A, "2026-11-21T16:45:00.000Z");
    const second = await store.begin(newRun(connectionId, RUN_B));
    expect(second).toEqual({ started: false, holder: { runId: RUN_A, executionRef: null, leaseUntil: "2026-11-21T16:45:00.000Z" } });
  });

  test("handOver of a run that no longer holds the lock changes nothing", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_B));
    await store.setExecution(connectionId, RUN_B, "exec-b");
    await store.handOver(connectionId, RUN_A, "2099-01-01T00:00:00.000Z");
    const holder = await store.begin(newRun(connectionId, RUN_A));
    expect(holder).toMatchObject({ started: false, holder: { runId: RUN_B, executionRef: "exec-b" } });
  });

  test("heartbeat extends the lease of its own lock", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.heartbeat(connectionId, RUN_A, "2026-11-21T16:30:00.000Z");
    expect((await lockItem(connectionId))?.["leaseUntil"]).toEqual({ S: "2026-11-21T16:30:00.000Z" });
  });

  test("heartbeat of a run that no longer holds the lock changes nothing", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.begin(newRun(connectionId, RUN_B, { leaseUntil: "2026-11-21T16:40:00.000Z" }), { replacing: RUN_A });
    await store.heartbeat(connectionId, RUN_A, "2099-01-01T00:00:00.000Z");
    expect(await lockItem(connectionId)).toMatchObject({ runId: { S: RUN_B }, leaseUntil: { S: "2026-11-21T16:40:00.000Z" } });
  });

  test("heartbeat without a lock is a no-op and creates no lock", async () => {
    const connectionId = newConnection();
    await expect(store.heartbeat(connectionId, RUN_A, "2099-01-01T00:00:00.000Z")).resolves.toBeUndefined();
    expect(await lockItem(connectionId)).toBeUndefined();
  });

  test("setExecution records the execution on its own lock only", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.setExecution(connectionId, RUN_A, "arn:execution:a");
    await store.setExecution(connectionId, RUN_B, "arn:execution:b");
    expect((await lockItem(connectionId))?.["executionRef"]).toEqual({ S: "arn:execution:a" });
  });
});

describe("finish", () => {
  test("finish sets the status and finished_at and releases the lock, so a new begin succeeds", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.finish(connectionId, RUN_A, { status: "succeeded", finishedAt: "2026-11-21T16:19:30.000Z" });

    expect(await store.get(connectionId, RUN_A)).toMatchObject({ status: "succeeded", finished_at: "2026-11-21T16:19:30.000Z" });
    expect(await lockItem(connectionId)).toBeUndefined();
    expect(await store.begin(newRun(connectionId, RUN_B))).toEqual({ started: true });
  });

  test("finish of a replaced run updates that run but does not release the other run's lock", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.begin(newRun(connectionId, RUN_B), { replacing: RUN_A });

    await store.finish(connectionId, RUN_A, { status: "failed", finishedAt: "2026-11-21T16:21:00.000Z" });

    expect(await store.get(connectionId, RUN_A)).toMatchObject({ status: "failed", finished_at: "2026-11-21T16:21:00.000Z" });
    expect((await lockItem(connectionId))?.["runId"]).toEqual({ S: RUN_B });
    expect((await store.get(connectionId, RUN_B))?.status).toBe("running");
    expect(await store.begin(newRun(connectionId, RUN_C))).toMatchObject({ started: false, holder: { runId: RUN_B } });
  });

  test("finish when the lock is another run's still finishes the run and leaves that lock alone", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await store.begin(newRun(connectionId, RUN_B), { replacing: RUN_A });
    await store.finish(connectionId, RUN_A, { status: "failed", finishedAt: "2026-11-21T16:19:00.000Z" });
    expect(await store.get(connectionId, RUN_A)).toMatchObject({ status: "failed", finished_at: "2026-11-21T16:19:00.000Z" });
    expect(await store.begin(newRun(connectionId, RUN_C))).toMatchObject({ started: false, holder: { runId: RUN_B } });
  });
});

describe("get and list", () => {
  test("get of an unknown run is null", async () => {
    expect(await store.get(newConnection(), RUN_A)).toBeNull();
  });

  test("list is newest first and honours the limit", async () => {
    const connectionId = newConnection();
    for (const runId of [RUN_B, RUN_A, RUN_C]) {
      await store.begin(newRun(connectionId, runId));
      await store.finish(connectionId, runId, { status: "succeeded", finishedAt: "2026-11-21T17:00:00.000Z" });
    }
    expect((await store.list(connectionId)).map((run) => run.id)).toEqual([RUN_C, RUN_B, RUN_A]);
    expect((await store.list(connectionId, { limit: 2 })).map((run) => run.id)).toEqual([RUN_C, RUN_B]);
  });

  test("list returns only the connection's runs, and no lock", async () => {
    const [one, two] = [newConnection(), newConnection()];
    await store.begin(newRun(one, RUN_A));
    await store.begin(newRun(two, RUN_B));
    const runs = await store.list(one);
    expect(runs.map((run) => [run.connection_id, run.id])).toEqual([[one, RUN_A]]);
    expect(runs[0]!.entities.map((e) => e.entity)).toEqual([...SUMMARY_ENTITIES]);
  });

  test("list refuses a limit outside 1..1000", async () => {
    await expect(store.list(newConnection(), { limit: 0 })).rejects.toThrow(RangeError);
    await expect(store.list(newConnection(), { limit: 1001 })).rejects.toThrow(RangeError);
  });
});

/**
 * The item format is the one the hand-written newRunItem/fromRunItem used
 * before the store converted through util-dynamodb and the domain's schemas:
 * summaries and locks already stored read back, new ones are written alike.
 */
describe("stored item format", () => {
  const runKey = (connectionId: string, runId: string) => ({ pk: { S: runPartitionKey(connectionId) }, sk: { S: runSortKey(runId) } });
  const pendingRow = { M: { status: { S: "pending" }, pages: { N: "0" }, records: { N: "0" }, error: { NULL: true } } };

  test("begin writes exactly the attributes of the old format", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    const out = await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: runKey(connectionId, RUN_A), ConsistentRead: true }));
    expect(out.Item).toEqual({
      ...runKey(connectionId, RUN_A),
      id: { S: RUN_A },
      connection_id: { S: connectionId },
      status: { S: "running" },
      started_at: { S: "2026-11-21T16:18:00.123Z" },
      finished_at: { NULL: true },
      unresolved_won_lost: { N: "0" },
      entities: { M: Object.fromEntries(SUMMARY_ENTITIES.map((entity) => [entity, pendingRow])) },
      expires_at: { N: String(runExpiresAt("2026-11-21T16:18:00.123Z")) },
    });
    expect(await lockItem(connectionId)).toEqual({
      pk: { S: runLockPartitionKey(connectionId) },
      sk: { S: LOCK_SORT_KEY },
      runId: { S: RUN_A },
      executionRef: { NULL: true },
      leaseUntil: { S: "2026-11-21T16:23:00.123Z" },
    });
  });

  test("a finished summary written in the old format reads back: rows in sync order, a row or count never written at its start value, last_page and expires_at not part of it", async () => {
    const connectionId = newConnection();
    const row = (status: string, pages: number, records: number, error: string | null) => ({
      M: { status: { S: status }, pages: { N: String(pages) }, records: { N: String(records) }, error: error === null ? { NULL: true } : { S: error }, last_page: { N: String(pages) } },
    });
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          ...runKey(connectionId, RUN_A),
          id: { S: RUN_A },
          connection_id: { S: connectionId },
          status: { S: "failed" },
          started_at: { S: "2026-11-21T16:18:00.123Z" },
          finished_at: { S: "2026-11-21T16:30:00.000Z" },
          // A summary begun before unresolved_won_lost and retention existed: no such attributes.
          entities: {
            M: {
              leads: row("failed", 3, 250, "the source answered 500"),
              pipelines: row("succeeded", 1, 2, null),
              stages: { M: { status: { S: "succeeded" } } },
            },
          },
        },
      }),
    );
    expect(await store.get(connectionId, RUN_A)).toEqual({
      id: RUN_A,
      connection_id: connectionId,
      status: "failed",
      started_at: "2026-11-21T16:18:00.123Z",
      finished_at: "2026-11-21T16:30:00.000Z",
      unresolved_won_lost: 0,
      // A summary from before waits were recorded reads with none.
      entities: SUMMARY_ENTITIES.map((entity) =>
        entity === "leads"
          ? { entity, status: "failed", pages: 3, records: 250, error: "the source answered 500", failure: null, waits: [], findings: [] }
          : entity === "pipelines"
            ? { entity, status: "succeeded", pages: 1, records: 2, error: null, failure: null, waits: [], findings: [] }
            : entity === "stages"
              ? { entity, status: "succeeded", pages: 0, records: 0, error: null, failure: null, waits: [], findings: [] }
              : { entity, status: "pending", pages: 0, records: 0, error: null, failure: null, waits: [], findings: [] },
      ),
    });
  });

  test("a lock written in the old format reads back, executionRef absent or NULL as null", async () => {
    const connectionId = newConnection();
    const lockKey = { pk: { S: runLockPartitionKey(connectionId) }, sk: { S: LOCK_SORT_KEY } };
    await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: { ...lockKey, runId: { S: RUN_A }, leaseUntil: { S: "2026-11-21T16:23:00.123Z" }, expires_at: { N: "1800000000" } } }));
    expect(await store.lock(connectionId)).toEqual({ runId: RUN_A, executionRef: null, leaseUntil: "2026-11-21T16:23:00.123Z" });
    await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: { ...lockKey, runId: { S: RUN_A }, executionRef: { S: "arn:exec" }, leaseUntil: { S: "2026-11-21T16:23:00.123Z" }, watermarksReset: { BOOL: true } } }));
    expect(await store.lock(connectionId)).toEqual({ runId: RUN_A, executionRef: "arn:exec", leaseUntil: "2026-11-21T16:23:00.123Z" });
  });

  test("a summary item with an unknown status is refused on read, naming the field", async () => {
    const connectionId = newConnection();
    await store.begin(newRun(connectionId, RUN_A));
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { ...runKey(connectionId, RUN_B), id: { S: RUN_B }, connection_id: { S: connectionId }, status: { S: "paused" }, started_at: { S: "2026-11-21T16:18:00.123Z" } },
      }),
    );
    await expect(store.get(connectionId, RUN_B)).rejects.toMatchObject({ name: "CorruptRunItemError", message: expect.stringContaining("status") });
  });
});
