import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { LocalSyncEngine } from "../../../lambdas/runtimes/local/local-sync-engine";
import type { TaskHandler } from "../../../lambdas/runtimes/local/step-functions/local-step-functions";
import { makeSyncHandlers } from "../../../lambdas/handlers/sync/sync-handlers";
import { newRunId } from "../../../lambdas/domain/sync/run-id";
import { startSync } from "../../../lambdas/domain/sync/start-sync";
import type { SyncDeps } from "../../../lambdas/domain/sync/sync-deps";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { crmSource, type CrmData } from "../../support/crm-source";
import { runSettled } from "../../support/run-settled";
import { startSourceServer, type SourceReply, type SourceRequest, type SourceServer } from "../../support/source-server";
import { createSyncHarness, entityRow, type SyncHarness } from "../../support/sync-harness";

/**
 * The two sync state machines on the local engines: the Standard run and the
 * Express page loop it runs in segments (RunPages, the local `.sync` task
 * override). Every wait is on a gate (a request that arrived, an execution
 * that ended), never on the clock.
 */

const TOKEN = "express-token-7a11";
const DAY_MS = 24 * 3_600_000;
let harness: SyncHarness;
let server: SourceServer;
let data: CrmData;
let fault: (request: SourceRequest) => SourceReply | undefined | Promise<SourceReply | undefined>;

const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
const leads = (count: number) => Array.from({ length: count }, (_, i) => leadRecord({ id: `l${i}`, updated_at: stamp(i) }));

function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

beforeAll(async () => {
  harness = await createSyncHarness();
  const serve = crmSource(() => data, { token: TOKEN });
  server = await startSourceServer(async (request) => (await fault(request)) ?? serve(request));
});
afterAll(async () => {
  await server.close();
  await harness.close();
});
beforeEach(() => {
  data = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: leads(450) };
  fault = () => undefined;
});

/** Both definitions on a fresh local engine over the harness's stores. */
function engineWith(options: { deps?: Partial<SyncDeps>; continueAsNew?: (proceed: TaskHandler) => TaskHandler } = {}): LocalSyncEngine {
  return new LocalSyncEngine({
    handlers: makeSyncHandlers({ ...harness.deps, ...options.deps }),
    timeScale: 0.01,
    ...(options.continueAsNew === undefined ? {} : { continueAsNew: options.continueAsNew }),
  });
}

const stateRunId = (input: unknown) => {
  const state = (input as { state?: { run_id?: string; run?: { run_id?: string } } }).state;
  return state?.run?.run_id ?? state?.run_id;
};
const syncPageEntries = (engine: LocalSyncEngine, ref: string) =>
  engine.events(ref).filter((event) => event.type === "StateEntered" && "state" in event && event.state.name === "SyncPage").length;

async function syncOn(engine: LocalSyncEngine, connectionId: string, businessAccountId: string): Promise<RunSummary> {
  const { runId } = await startSync({ ...harness.startDeps, starter: engine }, { id: connectionId, business_account_id: businessAccountId });
  return runSettled(engine, harness.runs, connectionId, runId);
}

/** A new connection to the file's source, synced once on `engine`. */
async function syncNewConnection(engine: LocalSyncEngine): Promise<{ connection: StoredConnection; summary: RunSummary }> {
  const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
  return { connection, summary: await syncOn(engine, connection.id, connection.business_account_id) };
}

describe("the page loop in Express segments", () => {
  test("a segment runs at most PAGE_TASKS_PER_SEGMENT page tasks, then the Standard parent starts the next from its cursor: every page once, in order", async () => {
    const engine = engineWith({ deps: { pageTasksPerSegment: 2 } });
    try {
      const { connection, summary } = await syncNewConnection(engine);
      expect(summary.status).toBe("succeeded");
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 5, records: 450 });

      const segments = engine.child.list();
      // 7 entities: pipelines 1 page, users 1, contacts 1, leads 5, tasks 1, calls 1, events 1 = 11 page tasks.
      expect(segments.map((segment) => syncPageEntries(engine, segment.executionId))).toEqual([2, 2, 2, 2, 2, 1]);
      expect(engine.parent.list()).toHaveLength(1);
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(450);
    } finally {
      await engine.stop();
    }
  });

  test("a segment that dies is re-run by its parent from the cursor it started with: nothing lost, nothing counted twice", async () => {
    const engine = engineWith({ deps: { pageTasksPerSegment: 3 } });
    let killed = false;
    fault = async (request) => {
      // Page 3 of /leads: pages 1 and 2 of this segment are committed; the segment dies under the third.
      if (request.path === "/leads" && request.query.get("page") === "3" && !killed) {
        killed = true;
        const running = engine.child.list().filter((segment) => segment.status === "RUNNING");
        await Promise.all(running.map((segment) => engine.child.abort(segment.executionId)));
        return { destroy: true };
      }
      return undefined;
    };
    try {
      const { connection, summary } = await syncNewConnection(engine);
      expect(killed).toBe(true);
      expect(engine.child.list().map((segment) => segment.status)).toContain("ABORTED");
      expect(summary.status).toBe("succeeded");
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 5, records: 450 });
      const stored = await harness.listAll(connection.id, "leads");
      expect(new Set(stored.map((lead) => lead["id"])).size).toBe(450);
      expect(stored).toHaveLength(450);
    } finally {
      await engine.stop();
    }
  });

  test("a segment that outlives its Standard execution (StopExecution cannot stop Express) writes nothing once another run holds the lock", async () => {
    const engine = engineWith();
    const reached = gate();
    const release = gate();
    fault = async (request) => {
      if (request.path === "/leads" && request.query.get("page") === "2") {
        reached.open();
        await release.opened;
      }
      return undefined;
    };
    try {
      const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
      // Fetched ahead, page 2's request leaves while page 1 commits: the takeover waits for both.
      const page1 = harness.pageCommitted("leads", 1);
      const { runId } = await startSync({ ...harness.startDeps, starter: engine }, connection);
      await Promise.all([reached.opened, page1]);
      const watermark = await harness.records.getWatermark(connection.id, "leads");
      const [parent] = engine.parent.list();
      // As on AWS: the run's execution ends, its Express segment goes on.
      await engine.abortParentOnly(parent!.executionId);
      expect(await engine.isRunning(parent!.executionId)).toBe(false);
      const [segment] = engine.child.list().filter((execution) => stateRunId(execution.input) === runId);
      expect(await engine.isRunning(segment!.executionId)).toBe(true);

      // The lock names an execution that has ended: the next start takes it over (here by hand, so no new run writes).
      const now = new Date();
      const taker = newRunId(now);
      const begun = await harness.runs.begin(
        { connectionId: connection.id, runId: taker, startedAt: now.toISOString(), leaseUntil: new Date(now.getTime() + DAY_MS).toISOString() },
        { replacing: runId },
      );
      expect(begun.started).toBe(true);

      release.open();
      const result = await engine.result(segment!.executionId);
      expect(result.status).toBe("SUCCEEDED");
      expect((result.output as { step: { outcome: string } }).step.outcome).toBe("superseded");
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(100);
      expect(await harness.records.getWatermark(connection.id, "leads")).toBe(watermark);
    } finally {
      release.open();
      await engine.stop();
    }
  });
});

describe("ContinueAsNew with a deterministic name", () => {
  test("each continuation is named <run id>-c<n>: a retried start finds the execution it started, so the run never forks", async () => {
    let attempts = 0;
    const started: string[] = [];
    // The first start of each continuation succeeds but its reply is lost: the definition's Retry starts it again.
    const engine = engineWith({
      deps: { pageTasksPerExecution: 4 },
      continueAsNew: (proceed) => async (input, context) => {
        attempts += 1;
        const reply = (await proceed(input, context)) as { ExecutionArn: string };
        started.push(reply.ExecutionArn);
        if (attempts % 2 === 1) {
          throw lostStartReply();
        }
        return reply;
      },
    });
    try {
      const { connection, summary } = await syncNewConnection(engine);
      expect(summary.status).toBe("succeeded");
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", pages: 5, records: 450 });

      // 11 page tasks at 4 per execution: two continuations, each started twice and each time the same execution.
      expect(started).toEqual([
        `local:${summary.id}-c1`,
        `local:${summary.id}-c1`,
        `local:${summary.id}-c2`,
        `local:${summary.id}-c2`,
      ]);
      const parents = engine.parent.list().map((execution) => execution.executionId);
      expect(parents.slice(1)).toEqual([`local:${summary.id}-c1`, `local:${summary.id}-c2`]);
      expect(parents).toHaveLength(3);
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(450);
    } finally {
      await engine.stop();
    }
  });

  test("a retried start after the continuation has already ended is ExecutionAlreadyExists, which ends the old execution cleanly", async () => {
    let first = true;
    const engine = engineWith({
      deps: { pageTasksPerExecution: 4 },
      continueAsNew: (proceed) => async (input, context) => {
        const reply = (await proceed(input, context)) as { ExecutionArn: string };
        if (first) {
          first = false;
          // The continuation runs the rest of the run to its end before the lost reply is retried.
          await engine.result(reply.ExecutionArn);
          throw lostStartReply();
        }
        return reply;
      },
    });
    try {
      const { connection, summary } = await syncNewConnection(engine);
      expect(summary.status).toBe("succeeded");
      const [original] = engine.parent.list();
      const result = await engine.result(original!.executionId);
      expect(result.status).toBe("SUCCEEDED");
      expect(engine.parent.list().map((execution) => execution.executionId)).toEqual([
        original!.executionId,
        `local:${summary.id}-c1`,
        `local:${summary.id}-c2`,
      ]);
      expect(await harness.listAll(connection.id, "leads")).toHaveLength(450);
    } finally {
      await engine.stop();
    }
  });
});

/** StartExecution succeeded but its reply was lost: the error the SDK integration raises, which the definition's Retry takes. */
function lostStartReply(): Error {
  const lost = new Error("the reply of StartExecution was lost");
  lost.name = "StepFunctions.AWSStepFunctionsException";
  return lost;
}
