import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { COLLECTIONS, SYNC_ENTITIES, type Collection, type SyncEntity } from "../../../lambdas/core/entities";
import type { RunSummary } from "../../../lambdas/core/run-summary";
import { entityDefinition } from "../../../lambdas/ingestion/entity-catalog";
import type { GateAnnouncement } from "../../../lambdas/local/crash-gates";
import { LOCAL_TABLE_NAME } from "../../../lambdas/local/local-runtime";
import { issueSessionToken, loadOrCreateSigningKey } from "../../../lambdas/local/local-token-issuer";
import { DynamoDbRunStore } from "../../../lambdas/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/store/dynamodb-record-store";
import { startGateControl } from "../../support/crash-gate-control";
import { CRASH_SYNC_SINCE, crashDataset, expectedCounts, expectedRecords, pagesOf, watermarkAfterPages } from "../../support/crash-dataset";
import { crmSource } from "../../support/crm-source";
import { freePort, startRuntimeProcess, type RuntimeProcess } from "../../support/runtime-process";
import { startSourceServer, type SourceReply, type SourceRequest, type SourceServer } from "../../support/source-server";

/**
 * Crash consistency, proven (issue 10; docs/crash-consistency.md). Each case
 * runs `npm start` as a child process with CRASH_GATES pointing at a control
 * server, starts a sync, SIGKILLs the runtime's whole process group (DynamoDB
 * Local included) at one named point of a page, starts it again on the same
 * DATA_DIR, and checks that the run the restart resumes ends with exactly the
 * source's records, the watermarks at their maximum, exact counts, the dead run
 * failed and never two runs at once. Every wait is on a gate, none on the clock.
 */

const CONNECTIONS = "/api/v1/crm/custom/connections";
const SOURCE_TOKEN = "crash-src-token-5e2a91";
const ACCOUNT = "acct-crash";
/** The Retry-After of the one throttled answer: the run sits in its Wait state this long unless killed. */
const RETRY_AFTER_SECONDS = 30;

const data = crashDataset();

export type CrashPart = 1 | 2 | 3;

/** Where the dead run was killed, as a page of the sync order: what it had committed follows from it. */
interface CrashCase {
  readonly name: string;
  /** Which of the three test files runs it: the cases take about 35 s each, so they are spread over the workers. */
  readonly part: CrashPart;
  readonly killAt: (announcement: GateAnnouncement) => boolean;
  /** The entity the kill lands in and how many of its pages were committed by then (earlier entities: all). */
  readonly entity: SyncEntity;
  readonly committedPages: number;
  /** Kill DynamoDB Local first, let the runtime run on into the dead store, then kill the rest. */
  readonly killJavaFirst?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  /** Called before the first start: a fault of the source for this case. */
  readonly fault?: () => (request: SourceRequest) => SourceReply | undefined;
}

const at =
  (point: GateAnnouncement["point"], entity: SyncEntity, page: number, extra: (a: GateAnnouncement) => boolean = () => true) =>
  (a: GateAnnouncement) =>
    a.point === point && a.entity === entity && a.page === page && extra(a);

const CASES: readonly CrashCase[] = [
  { name: "before the fetch", part: 1, killAt: at("before-fetch", "leads", 2), entity: "leads", committedPages: 1 },
  { name: "after the fetch, before any write", part: 1, killAt: at("after-fetch", "leads", 2), entity: "leads", committedPages: 1 },
  {
    name: "between the page's transactions", part: 2,
    killAt: at("after-transaction", "leads", 1, (a) => a.transaction === 1 && a.watermark === false),
    entity: "leads",
    committedPages: 0,
  },
  {
    name: "after the last transaction, before the state machine records the task's result", part: 3,
    killAt: at("page-task-returned", "leads", 1),
    entity: "leads",
    committedPages: 1,
  },
  {
    name: "during a Wait after a 429 with Retry-After", part: 3,
    killAt: at("waiting", "leads", 2),
    entity: "leads",
    committedPages: 1,
    fault: () => {
      let throttled = false;
      return (request) => {
        if (throttled || request.path !== "/leads" || request.query.get("page") !== "2") return undefined;
        throttled = true;
        return { status: 429, headers: { "retry-after": String(RETRY_AFTER_SECONDS) }, json: { error: "slow down" } };
      };
    },
  },
  {
    name: "during ContinueAsNew", part: 1,
    // Three page tasks per execution: pipelines, users and contacts page 1, then the run continues at contacts page 2.
    env: { PAGE_TASKS_PER_EXECUTION: "3" },
    killAt: (a) => a.point === "continue-as-new" && a.entity === "contacts" && a.page === 2,
    entity: "contacts",
    committedPages: 1,
  },
  {
    name: "DynamoDB Local killed mid-run (between the page's transactions)", part: 2,
    killAt: at("after-transaction", "leads", 1, (a) => a.transaction === 1),
    entity: "leads",
    committedPages: 0,
    killJavaFirst: true,
  },
];

/** The watermark of each incremental entity once the dead run had committed what the case says. */
function committedWatermarks(crash: CrashCase): Map<SyncEntity, string | null> {
  const crashed = SYNC_ENTITIES.indexOf(crash.entity);
  return new Map(
    SYNC_ENTITIES.map((entity, index) => {
      const pages = index < crashed ? pagesOf(data[entity]?.length ?? 0) : index === crashed ? crash.committedPages : 0;
      return [entity, watermarkAfterPages(data, entity, pages)];
    }),
  );
}

interface Api {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}
async function apiOf(url: string, dataDir: string): Promise<Api> {
  const key = await loadOrCreateSigningKey(dataDir);
  const token = await issueSessionToken({ key, account: ACCOUNT, role: "owner" });
  return {
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

/** Reads DynamoDB Local directly (the runtime's own instance, on the port the test gave it). */
function tableOf(dynamoDbPort: number) {
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${dynamoDbPort}`,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const records = new DynamoDbRecordStore({ client, tableName: LOCAL_TABLE_NAME });
  const runs = new DynamoDbRunStore({ client, tableName: LOCAL_TABLE_NAME });
  return {
    runs,
    async watermarks(connectionId: string): Promise<Map<SyncEntity, string | null>> {
      const entries = await Promise.all(SYNC_ENTITIES.map(async (entity) => [entity, await records.getWatermark(connectionId, entity)] as const));
      return new Map(entries);
    },
    async records(connectionId: string, collection: Collection): Promise<Record<string, unknown>[]> {
      let all: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      do {
        const page = await records.listRecords(connectionId, collection, { limit: 1000, cursor });
        all = all.concat(page.records);
        cursor = page.nextCursor;
      } while (cursor !== null);
      return all;
    },
    destroy: () => client.destroy(),
  };
}

const byKey = (docs: readonly Record<string, unknown>[]) =>
  [...docs].sort((a, b) => JSON.stringify([a["pipeline_id"], a["id"]]).localeCompare(JSON.stringify([b["pipeline_id"], b["id"]])));

/** Runs never overlap: newest first, each run started no earlier than the one before it finished. */
function expectOneRunAtATime(runs: readonly RunSummary[]): void {
  const oldestFirst = [...runs].reverse();
  for (let i = 1; i < oldestFirst.length; i += 1) {
    const before = oldestFirst[i - 1]!;
    expect(before.finished_at, `run ${before.id} ended before run ${oldestFirst[i]!.id} started`).not.toBeNull();
    expect(Date.parse(oldestFirst[i]!.started_at)).toBeGreaterThanOrEqual(Date.parse(before.finished_at!));
  }
  expect(runs.filter((run) => run.status === "running").length).toBeLessThanOrEqual(1);
}

/**
 * Registers the cases of one part: a loopback source (with a per-case fault), and each case
 * as its own test, with every runtime it started killed afterwards.
 */
export function describeCrashCases(part: CrashPart): void {
  let source: SourceServer;
  let fault: ((request: SourceRequest) => SourceReply | undefined) | undefined;
  beforeAll(async () => {
    source = await startSourceServer(crmSource(() => data, { token: SOURCE_TOKEN, fault: (request) => fault?.(request) }));
  });
  afterAll(async () => {
    await source.close();
  });
  /** Every runtime a case started: killed here too, since a case that times out never reaches its own finally. */
  const started: RuntimeProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((runtime) => runtime.killGroup().catch(() => {})));
  });
  const startRuntime = (env: Record<string, string>) => {
    const runtime = startRuntimeProcess(env);
    started.push(runtime);
    return runtime;
  };

  describe("crash consistency: SIGKILL of the whole local runtime at each point of a page", () => {
    for (const crash of CASES.filter((c) => c.part === part)) {
      test(`killed ${crash.name}: after a restart the resumed run ends with exactly the source's records, watermarks at the committed maximum, exact counts, the dead run failed, one run at a time`, async () => {
        const dataDir = await mkdtemp(join(tmpdir(), "crm-crash-"));
        const control = await startGateControl();
        const dynamoDbPort = await freePort();
        const env = {
          DATA_DIR: dataDir,
          PORT: "0",
          TIME_SCALE: "1",
          DYNAMODB_PORT: String(dynamoDbPort),
          CRASH_GATES: control.url,
          ...crash.env,
        };
        fault = crash.fault?.();
        let runtime: RuntimeProcess = startRuntime(env);
        const table = tableOf(dynamoDbPort);
        try {
          // --- First life: start a sync and kill everything at the chosen point.
          let api = await apiOf(await runtime.url, dataDir);
          const created = await api.call("POST", CONNECTIONS, {
            base_url: source.baseUrl,
            token: SOURCE_TOKEN,
            rate_limit: 100,
            sync_since: CRASH_SYNC_SINCE,
            trigger_sync: false,
          });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          const connectionId = created.body.id as string;

          const killPoint = control.hold(crash.killAt);
          const started = await api.call("POST", `${CONNECTIONS}/${connectionId}/syncs`);
          expect(started.status).toBe(202);
          const deadRunId = started.body.id as string;
          const held = await killPoint;
          expect(held.announcement.run_id).toBe(deadRunId);

          if (crash.killJavaFirst === true) {
            await runtime.killJava();
            const unreachable = control.hold((a) => a.point === "store-unreachable");
            held.go();
            await unreachable;
          }
          await runtime.killGroup();
          fault = undefined;

          // --- Second life: the restart resumes the cut-short run; hold it before its first request.
          const firstFetch = control.hold((a) => a.point === "before-fetch");
          runtime = startRuntime(env);
          const begun = await firstFetch;
          const resumedRunId = begun.announcement.run_id!;
          expect(resumedRunId).not.toBe(deadRunId);
          expect(begun.announcement).toMatchObject({ connection_id: connectionId, entity: "pipelines", page: 1 });

          // What the dead run left: watermarks at what it had committed, never ahead of it.
          const watermarksAtRestart = await table.watermarks(connectionId);
          expect(Object.fromEntries(watermarksAtRestart)).toEqual(Object.fromEntries(committedWatermarks(crash)));

          // A kill inside a page's write left part of the page behind (the point was really mid-page), and no watermark for it.
          if (crash.entity === "leads" && crash.committedPages === 0) {
            // Leads page 1 writes 200 records (100 loss reasons, then 100 leads) in transactions of at most 100 actions.
            const partial = (await table.records(connectionId, "loss_reasons")).length + (await table.records(connectionId, "leads")).length;
            expect(partial).toBeGreaterThan(0);
            expect(partial).toBeLessThan(200);
          }

          // The dead run is reported failed, with every entity it had not finished failed and explained.
          const dead = await table.runs.get(connectionId, deadRunId);
          expect(dead?.status).toBe("failed");
          expect(dead?.finished_at).not.toBeNull();
          const unfinished = dead!.entities.filter((row) => row.status !== "succeeded");
          expect(unfinished.length).toBeGreaterThan(0);
          for (const row of unfinished) {
            expect(row.status).toBe("failed");
            expect(row.error).toEqual(expect.any(String));
          }

          // One run at a time: a manual sync while the resumed run is in progress gets that run, not a second one.
          api = await apiOf(await runtime.url, dataDir);
          const manual = await api.call("POST", `${CONNECTIONS}/${connectionId}/syncs`);
          expect(manual.status).toBe(202);
          expect(manual.body.id).toBe(resumedRunId);
          expectOneRunAtATime(await table.runs.list(connectionId));

          const finished = control.hold((a) => a.point === "run-finished" && a.run_id === resumedRunId);
          begun.go();
          const end = await finished;
          end.go();
          expect(end.announcement.status).toBe("succeeded");

          // Exactly the source's records per collection: none lost, none duplicated, tombstones as the source says.
          const expected = expectedRecords(data);
          for (const collection of COLLECTIONS) {
            const stored = await table.records(connectionId, collection);
            expect(byKey(stored), `${collection} as stored`).toEqual(byKey(expected.get(collection) ?? []));
          }
          const leads = await table.records(connectionId, "leads");
          expect(leads.filter((lead) => lead["is_deleted"] === true).map((lead) => lead["id"]).sort()).toEqual(
            (data.leads ?? []).filter((lead) => lead["is_deleted"] === true).map((lead) => lead["id"]).sort(),
          );

          // Watermarks at the maximum the source has, for every incremental entity.
          const finalWatermarks = await table.watermarks(connectionId);
          for (const entity of SYNC_ENTITIES) {
            const full = entityDefinition(entity).incremental ? watermarkAfterPages(data, entity, pagesOf(data[entity]?.length ?? 0)) : null;
            expect(finalWatermarks.get(entity), `${entity} watermark`).toBe(full);
          }

          // The resumed run's counts are exact: each page of its query counted once.
          const resumed = await table.runs.get(connectionId, resumedRunId);
          expect(resumed?.status).toBe("succeeded");
          expect(resumed?.unresolved_won_lost).toBe(0);
          expect(resumed?.entities.map(({ entity, pages, records }) => ({ entity, pages, records }))).toEqual(
            expectedCounts(data, watermarksAtRestart),
          );
          expect(resumed?.entities.every((row) => row.status === "succeeded" && row.error === null)).toBe(true);

          // Two runs in all, never overlapping; the API reports the same.
          const runs = await table.runs.list(connectionId);
          expect(runs.map((run) => [run.id, run.status])).toEqual([
            [resumedRunId, "succeeded"],
            [deadRunId, "failed"],
          ]);
          expectOneRunAtATime(runs);
          const listed = await api.call("GET", `${CONNECTIONS}/${connectionId}/syncs`);
          expect(listed.body.data.map((run: RunSummary) => [run.id, run.status])).toEqual([
            [resumedRunId, "succeeded"],
            [deadRunId, "failed"],
          ]);
        } catch (error) {
          console.error(`--- runtime output (tail), ${crash.name} ---\n${runtime.output().slice(-6000)}`);
          throw error;
        } finally {
          fault = undefined;
          await runtime.killGroup().catch(() => {});
          table.destroy();
          await control.close();
          await rm(dataDir, { recursive: true, force: true });
        }
      }, 180_000);
    }
  });
}
