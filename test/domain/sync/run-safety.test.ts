import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { SYNC_DEFINITION_PATH } from "../../../statemachine/sync-definition";
import { serviceCompletes } from "../../../lambdas/domain/source-contract/rules/failure-rules";
import { MAX_RETRY_AFTER_SECONDS } from "../../../lambdas/domain/core/limits";
import { StoreUnavailableError } from "../../../lambdas/domain/core/errors";
import type { TaskHandler } from "../../../lambdas/runtimes/local/step-functions/local-step-functions";
import { LocalSyncEngine } from "../../../lambdas/runtimes/local/local-sync-engine";
import { claimDispatchedRuns } from "../../../lambdas/domain/sync/dispatch-tick";
import { makeSyncHandlers } from "../../../lambdas/handlers/sync/sync-handlers";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import type { StartSyncDeps } from "../../../lambdas/domain/sync/sync-deps";
import type { SyncState } from "../../../lambdas/domain/sync/sync-state";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { gate } from "../../support/gate";
import { runSettled } from "../../support/run-settled";
import { holdFirstRequest, useScriptedCrmSource } from "../../support/scripted-crm-source";
import { entityRow, syncOnEngine, useSyncHarness } from "../../support/sync-harness";

/**
 * The rules that keep one connection to one run, and a run's writes exact:
 * every assertion waits on gates (a source request that arrived, an execution
 * that ended), never on the clock.
 */

const TOKEN = "run-safety-token-5be1";
const DAY_MS = 24 * 3_600_000;
const harness = useSyncHarness();

const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
const leads = (count: number) => Array.from({ length: count }, (_, i) => leadRecord({ id: `l${i}`, updated_at: stamp(i) }));
const source = useScriptedCrmSource(TOKEN, () => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: leads(150) }));

/**
 * Holds the first request for page 2 of /leads until released; `reached` opens
 * when it has arrived and page 1 has committed (fetched ahead, the request
 * leaves while page 1 commits).
 */
function holdLeadsPage2() {
  const page1 = harness().pageCommitted("leads", 1);
  const held = holdFirstRequest(source, "/leads", 2);
  return { reached: Promise.all([held.arrived, page1]).then(() => undefined), release: held.release };
}

/** A new connection's run under way, held at its leads page 2 (page 1 committed) until `release()`. */
async function heldRun() {
  const held = holdLeadsPage2();
  const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
  const { runId } = await startSync(harness().startDeps, connection);
  await held.reached;
  return { connection, runId, release: held.release };
}

const executionsByRun = new Map<string, string>();

beforeAll(() => {
  const { engine } = harness();
  const start = engine.start.bind(engine);
  engine.start = async (input) => {
    const ref = await start(input);
    executionsByRun.set((input as { run_id: string }).run_id, ref);
    return ref;
  };
});

/** startSync's deps with a clock a day ahead: every lease taken so far has passed. */
function aDayLater(deps: StartSyncDeps): StartSyncDeps {
  return { ...deps, clock: { now: () => new Date(Date.now() + DAY_MS) } };
}

describe("never two runs of one connection", () => {
  test("a long wait is not death: a run whose execution still runs is never taken over, even after its lease has passed", async () => {
    const { connection, runId, release } = await heldRun();

    const later = aDayLater(harness().startDeps);
    expect(await startSync(later, connection)).toEqual({ runId, started: false });
    // Nor by the schedule tick's claim (ClaimRuns): the connection's run goes on.
    expect(await claimDispatchedRuns(later, [{ business_account_id: connection.business_account_id, connection_id: connection.id }])).toEqual({ runs: [] });

    release();
    expect((await harness().waitForRun(connection.id, runId)).status).toBe("succeeded");
    expect(await harness().runs.list(connection.id)).toHaveLength(1);
  });

  test("a run that lost its connection's lock writes nothing: its page is refused and its execution ends", async () => {
    const { connection, runId, release } = await heldRun();
    const watermark = await harness().records.getWatermark(connection.id, "leads");

    // Another run takes the lock (as startSync does with a run it judged dead) and reports the old one failed.
    const now = new Date();
    const taker = newRunId(now);
    const begun = await harness().runs.begin(
      { connectionId: connection.id, runId: taker, startedAt: now.toISOString(), leaseUntil: new Date(now.getTime() + DAY_MS).toISOString() },
      { replacing: runId },
    );
    expect(begun.started).toBe(true);
    await harness().runs.finish(connection.id, runId, { status: "failed", finishedAt: now.toISOString() });
    const reported = await harness().runs.get(connection.id, runId);

    release();
    const result = await harness().engine.result(executionsByRun.get(runId)!);
    expect(result).toMatchObject({ status: "FAILED", error: "RunSupersededError" });
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(100);
    expect(await harness().records.getWatermark(connection.id, "leads")).toBe(watermark);
    expect(await harness().runs.get(connection.id, runId)).toEqual(reported);
  });

  test("a run continuing in a fresh execution is not taken for dead while the next execution starts", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    // An engine whose ContinueAsNew only captures the next execution's input: the old execution ends
    // before the next one has begun, the window in which the lock must not read as dead.
    const pending = gate<{ Input: unknown; Name: string }>();
    let captured = false;
    const engine = engineWith({}, 2, (proceed) => async (input, context) => {
      if (captured) return proceed(input, context);
      captured = true;
      pending.open(input as { Input: unknown; Name: string });
      return { ExecutionArn: "local:not-started-yet" };
    });
    const deps: StartSyncDeps = { ...harness().startDeps, starter: engine };
    try {
      const first = await startSync(deps, connection);
      const next = await pending.opened;
      // The old execution has ended (ContinueAsNew is its last state); the next has not recorded itself yet.
      await engine.result(engine.list()[0]!.executionId);

      expect(await startSync(deps, connection)).toEqual({ runId: first.runId, started: false });

      await engine.start(next.Input, { name: next.Name });
      const summary = await runSettled(engine, harness().runs, connection.id, first.runId);
      expect(summary.status).toBe("succeeded");
      expect(await harness().listAll(connection.id, "leads")).toHaveLength(150);
    } finally {
      await engine.stop();
    }
  });
});

describe("counts", () => {
  test("a page task retried after it committed counts its page once", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    // The page task commits leads page 2, then its reply is lost (a Lambda timeout after the commit): retried.
    let lost = false;
    const engine = engineWith({
      SyncPage: async (input) => {
        const state = input as SyncState;
        const out = await makeSyncHandlers(harness().deps).SyncPage(input);
        if (state.cursor?.entity === "leads" && state.cursor.page === 2 && !lost) {
          lost = true;
          throw new StoreUnavailableError("the reply of a committed page task was lost");
        }
        return out;
      },
    });
    const summary = await syncOnEngine(harness(), engine, connection);
    expect(lost).toBe(true);
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 2, records: 150 });
    // Page 2 came ahead in the task's input, so its retry commits the same answer without asking again.
    expect(source.server.requests.filter((request) => request.path === "/leads")).toHaveLength(2);
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(150);
  });
});

describe("a segment that fails through every retry", () => {
  // "Error handling": the child's retriers give up, the segment fails (SegmentBusy), RunPages' Retry runs it again from
  // its cursor after a wait in the Standard parent, and its Catch fails the entities with the error: never the run.
  const busyOn = (entity: string, segment?: number) => {
    const counted = { tries: 0 };
    const deps = segment === undefined ? harness().deps : { ...harness().deps, pageTasksPerSegment: segment };
    const handlers = makeSyncHandlers(deps);
    const engine = new LocalSyncEngine({
      handlers: {
        ...handlers,
        SyncPage: async (input: unknown) => {
          if ((input as SyncState).cursor?.entity !== entity) return handlers.SyncPage(input);
          counted.tries += 1;
          throw new StoreUnavailableError("the table is throttled");
        },
      },
      // The waits asked for are what these tests check (counted tries), not their length: the ladders of the child and of
      // RunPages add up to minutes, seconds even at 0.01.
      timeScale: 0.0005,
    });
    return { engine, counted };
  };
  const runPagesRetries = (JSON.parse(readFileSync(SYNC_DEFINITION_PATH, "utf8")) as { States: Record<string, { Retry: Array<{ MaxAttempts: number }> }> }).States["RunPages"]!.Retry[0]!.MaxAttempts;

  test("a later segment that fails through every retry (our own store busy on every try of one page) fails that entity (PageLoopFailed: a failure of ours, service.completes), and the run goes on to the next", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const { engine, counted } = busyOn("tasks", 2);
    const summary = await syncOnEngine(harness(), engine, connection);
    // Every try of the segment: its first attempt and the child's 8 retries, once and once per RunPages retry.
    expect(counted.tries).toBe((1 + 8) * (1 + runPagesRetries));
    expect(entityRow(summary, "tasks")).toMatchObject({ status: "failed" });
    // A segment that cannot finish inside Express's 5 minutes, or our own service busy, is ours (never the source's).
    expect(entityRow(summary, "tasks")!.failure).toMatchObject({ rule: serviceCompletes.id });
    expect(entityRow(summary, "calls")!.status).toBe("succeeded");
    expect(entityRow(summary, "events")!.status).toBe("succeeded");
    // The failed segment began in leads and finished it before it reached tasks: leads keeps its outcome.
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 150 });
    // tasks is optional: the run succeeds, and its lock is released.
    expect(summary.status).toBe("succeeded");
    expect(await harness().runs.lock(connection.id)).toBeNull();
  }, 120_000);

  test("a fresh run's first segment that fails through every retry fails every unfinished entity (PageLoopFailed: service.completes) and finishes the run, its lock released", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const { engine } = busyOn("tasks");
    const summary = await syncOnEngine(harness(), engine, connection);
    for (const entity of ["tasks", "calls", "events"]) {
      expect(entityRow(summary, entity), entity).toMatchObject({ status: "failed" });
      expect(entityRow(summary, entity)!.failure, entity).toMatchObject({ rule: serviceCompletes.id });
    }
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 150 });
    expect(summary.status).toBe("succeeded");
    expect(await harness().runs.lock(connection.id)).toBeNull();
  }, 120_000);
});

describe("Retry-After", () => {
  test(`a Retry-After above ${MAX_RETRY_AFTER_SECONDS} s fails the entity at once with a clear detail`, async () => {
    source.fault = (request) => (request.path === "/leads" ? { status: 429, headers: { "retry-after": "3600" }, json: { error: "slow down" } } : undefined);
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const summary = await harness().sync(connection);

    expect(source.server.requests.filter((request) => request.path === "/leads")).toHaveLength(1);
    const row = entityRow(summary, "leads")!;
    expect(row.status).toBe("failed");
    expect(row.error).toContain("asked to wait 3600 s");
    expect(row.error).toContain(`at most ${MAX_RETRY_AFTER_SECONDS} s`);
    // The entities after it still ran; the run fails because leads is required.
    expect(source.server.requests.map((request) => request.path)).toContain("/events");
    expect(summary.status).toBe("failed");
  });
});

describe("sync_since changed under a running run", () => {
  test("the run writes no watermark back: it stops, and the next run reads every entity from the new date", async () => {
    const { connection, runId, release } = await heldRun();
    expect(await harness().records.getWatermark(connection.id, "leads")).not.toBeNull();

    // What PATCH does with a new sync_since.
    await harness().records.resetWatermarks(connection.id);
    release();
    const summary = await harness().waitForRun(connection.id, runId);

    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "leads")?.error).toContain("sync_since was changed");
    for (const entity of ["contacts", "leads", "tasks", "calls", "events"] as const) {
      expect(await harness().records.getWatermark(connection.id, entity), entity).toBeNull();
    }
    source.server.requests.length = 0;
    const next = await harness().sync(connection);
    expect(next.status).toBe("succeeded");
    const since = source.server.requests.find((request) => request.path === "/leads")?.query["updated_since"];
    expect(since).toBe(`${connection.sync_since.slice(0, 19)}+00:00`);
  });
});

/** The sync definitions on a second local engine over the harness's stores, with some Task handlers replaced. */
function engineWith(
  overrides: Record<string, TaskHandler>,
  pageTasksPerExecution?: number,
  continueAsNew?: (proceed: TaskHandler) => TaskHandler,
): LocalSyncEngine {
  const deps = pageTasksPerExecution === undefined ? harness().deps : { ...harness().deps, pageTasksPerExecution };
  return new LocalSyncEngine({
    handlers: { ...makeSyncHandlers(deps), ...overrides },
    timeScale: 0.01,
    ...(continueAsNew === undefined ? {} : { continueAsNew }),
  });
}

describe("a restart of the local runtime", () => {
  test("a lock caught handing over to a fresh execution (no execution known) is taken over at once when the caller knows every earlier execution is gone", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const now = new Date();
    const handingOver = newRunId(now);
    await harness().runs.begin({ connectionId: connection.id, runId: handingOver, startedAt: now.toISOString(), leaseUntil: new Date(now.getTime() + DAY_MS).toISOString() });
    await harness().runs.handOver(connection.id, handingOver, new Date(now.getTime() + DAY_MS).toISOString());

    // Anyone else keeps away while the lease lasts: the next execution may be about to record itself.
    expect(await startSync(harness().startDeps, connection)).toEqual({ runId: handingOver, started: false });
    const resumed = await startSync(harness().startDeps, connection, { earlierExecutionsGone: true });
    expect(resumed.started).toBe(true);
    expect((await harness().waitForRun(connection.id, resumed.runId)).status).toBe("succeeded");
    expect((await harness().runs.get(connection.id, handingOver))?.status).toBe("failed");
  });
});

describe("a changed rate_limit", () => {
  test("a PATCHed rate_limit applies from the page after the one whose connection read first sees it (the slot is taken while the connection is read)", async () => {
    source.data = { ...source.data, leads: leads(350) };
    const held = holdLeadsPage2();
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN, rateLimit: 1000 });
    const real = harness().limiter.acquire.bind(harness().limiter);
    const rates: number[] = [];
    // The rate each request's slot is taken at; a stale slot replaced for the same request (at the same rate) is not a new one.
    harness().limiter.acquire = async (connectionId, rate, options) => {
      if (connectionId === connection.id && options?.replacing === undefined) rates.push(rate);
      return real(connectionId, rate, options);
    };
    try {
      const { runId } = await startSync(harness().startDeps, connection);
      await held.reached;
      const before = rates.length;
      // Page 2 has its connection and slot already (read and reserved while page 1 committed); the new rate is
      // read while page 2 commits, for page 3, whose slot is reserved in that same moment at the old rate.
      await harness().connections.put({ ...connection, rate_limit: 7, updated_at: new Date().toISOString() });
      held.release();
      expect((await harness().waitForRun(connection.id, runId)).status).toBe("succeeded");
      // Page 3 takes its slot at the rate page 2 read (1000) while it reads 7; every slot after that is at 7.
      expect(rates.slice(before)).toEqual([1000, ...Array(rates.length - before - 1).fill(7)]);
      expect(rates.length - before).toBeGreaterThan(2);
    } finally {
      harness().limiter.acquire = real;
    }
  });
});

describe("a changed or deleted connection under a running run", () => {
  const NEW_TOKEN = "run-safety-rotated-token-93c0";
  const bearer = (token: string) => `Bearer ${token}`;

  /** Holds leads page 2 (see holdLeadsPage2) and serves requests made with NEW_TOKEN as the source would after a rotation. */
  function holdLeadsPage2AndAcceptNewToken() {
    const held = holdLeadsPage2();
    const hold = source.fault;
    const serveNew = crmSource(() => source.data, { token: NEW_TOKEN });
    source.fault = async (request) => (await hold(request)) ?? (request.headers.authorization === bearer(NEW_TOKEN) ? serveNew(request) : undefined);
    return held;
  }

  const leadsRequests = () =>
    source.server.requests
      .filter((request) => request.path === "/leads")
      .map((request) => ({ page: Number(request.query["page"]), authorization: request.headers.authorization }));

  test("a rotated token is used from the next page: the page after the one in flight when it is rotated sends the new token, and no later request the old one", async () => {
    source.data = { ...source.data, leads: leads(350) };
    const held = holdLeadsPage2AndAcceptNewToken();
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const { runId } = await startSync(harness().startDeps, connection);
    await held.reached;
    const ciphertext = await harness().cipher.encrypt(NEW_TOKEN, { businessAccountId: connection.business_account_id, connectionId: connection.id });
    await harness().connections.put({ ...connection, token_ciphertext: ciphertext, updated_at: new Date().toISOString() });
    held.release();

    expect((await harness().waitForRun(connection.id, runId)).status).toBe("succeeded");
    expect(leadsRequests()).toEqual([
      { page: 1, authorization: bearer(TOKEN) },
      { page: 2, authorization: bearer(TOKEN) },
      { page: 3, authorization: bearer(NEW_TOKEN) },
      { page: 4, authorization: bearer(NEW_TOKEN) },
    ]);
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(350);
  });

  test("a deleted connection stops the run at its next page: no request for it, nothing more written", async () => {
    source.data = { ...source.data, leads: leads(350) };
    const { connection, runId, release } = await heldRun();
    await harness().connections.delete(connection.business_account_id, connection.id);
    release();

    const summary = await harness().waitForRun(connection.id, runId);
    expect(summary.status).toBe("failed");
    expect(entityRow(summary, "leads")).toMatchObject({ status: "failed", error: expect.stringContaining("no longer exists") });
    expect(leadsRequests().map((request) => request.page)).toEqual([1, 2]);
    // Page 2 was fetched before the delete was seen and commits; nothing after it.
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(200);
    expect(source.server.requests.filter((request) => ["/tasks", "/calls", "/events"].includes(request.path))).toEqual([]);
  });
});
