import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { COLLECTIONS, SYNC_ENTITIES, type Collection, type SyncEntity } from "../../../../lambdas/domain/core/entities";
import type { RunSummary } from "../../../../lambdas/domain/core/run-summary";
import { entityDefinition } from "../../../../lambdas/domain/source-contract/entity-catalog";
import { DYNAMODB_DATA_DIR, LOCAL_TABLE_NAME } from "../../../../lambdas/runtimes/local/local-runtime";
import { ENGINE_TMP_DIR } from "../../../../lambdas/runtimes/local/dynamodb-local";
import { issueSessionToken, loadOrCreateSigningKey } from "../../../../lambdas/runtimes/local/local-token-issuer";
import { DynamoDbRunStore } from "../../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { LIVES, type CrashCase, type CrashPart } from "./crash-lives";
import { startGateControl, type GateControl, type HeldGate } from "./crash-gate-control";
import { CRASH_SYNC_SINCE, crashDataset, expectedCounts, expectedRecords, pagesOf, watermarkAfterPages } from "./crash-dataset";
import { crmSource } from "../../../support/crm-source";
import { freePort, startRuntimeProcess, type RuntimeProcess } from "../../../support/runtime-process";
import { startSourceServer, type SourceServer } from "../../../support/source-server";
import { nativeLibraryCopyOf } from "../../../support/native-library-copy";

/**
 * Crash consistency, proven (issue 10; docs/crash-consistency.md). Each life
 * runs `npm start` as a child process with CRASH_GATES pointing at a control
 * server, starts one sync per case (each connection on its own loopback
 * source), holds each run at its case's point of a page, SIGKILLs the
 * runtime's whole process group (DynamoDB Local included) once all are held,
 * starts it again on the same DATA_DIR, and checks per case that the run the
 * restart resumes ends with exactly the source's records, the watermarks at
 * their maximum, exact counts, the dead run failed and never two runs at once.
 * Every wait is on a gate, none on the clock.
 */

const CONNECTIONS = "/api/v1/crm/custom/connections";
const SOURCE_TOKEN = "crash-src-token-5e2a91";
const ACCOUNT = "acct-crash";
const data = crashDataset();

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

/** What the first life left of one case, for its test: its connection, its dead run and its resumed run, held. */
interface CutShortRun {
  readonly connectionId: string;
  readonly deadRunId: string;
  /** The resumed run's first announcement (pipelines page 1, before the fetch), held until the case's test lets it go. */
  readonly begun: HeldGate;
}

/**
 * Registers the cases of one part: one life of the runtime in which every case's run is cut short by the same
 * kill, then one test per case that finishes its resumed run and checks it.
 */
export function describeCrashCases(part: CrashPart): void {
  const life = LIVES.find((candidate) => candidate.part === part)!;
  const cutShort = new Map<string, CutShortRun>();
  const sources: SourceServer[] = [];
  /** Every runtime the life started: killed at the end, whatever failed. */
  const started: RuntimeProcess[] = [];
  let dataDir = "";
  let control: GateControl;
  let table: ReturnType<typeof tableOf>;
  let runtime: RuntimeProcess;
  /** The first life's DynamoDB Local's copy of its native library, read before the kill. */
  let killedEngineCopy: string | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "crm-crash-"));
    control = await startGateControl();
    const dynamoDbPort = await freePort();
    const env = { DATA_DIR: dataDir, PORT: "0", TIME_SCALE: "1", DYNAMODB_PORT: String(dynamoDbPort), CRASH_GATES: control.url, ...life.env };
    // A source per case, so that one case's fault reaches only its own run.
    let faultsOn = true;
    const sourceOf = new Map<string, SourceServer>();
    for (const crash of life.cases) {
      const fault = crash.fault?.();
      const source = await startSourceServer(
        crmSource(() => data, { token: SOURCE_TOKEN, fault: (request) => (faultsOn ? fault?.(request) : undefined) }),
      );
      sources.push(source);
      sourceOf.set(crash.name, source);
    }
    const startRuntime = () => {
      const next = startRuntimeProcess(env);
      started.push(next);
      return next;
    };
    runtime = startRuntime();
    table = tableOf(dynamoDbPort);
    try {
      // --- First life: start a sync per case and hold each run at its case's point, one case after the other: the
      // Wait case's point does not block its run, so it comes last and the kill follows it within its Retry-After.
      const api = await apiOf(await runtime.url, dataDir);
      const held: { crash: CrashCase; connectionId: string; deadRunId: string; gate: HeldGate }[] = [];
      for (const crash of life.cases) {
        const created = await api.call("POST", CONNECTIONS, {
          base_url: sourceOf.get(crash.name)!.baseUrl,
          token: SOURCE_TOKEN,
          rate_limit: 100,
          sync_since: CRASH_SYNC_SINCE,
          trigger_sync: false,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const connectionId = created.body.id as string;
        const gate = control.hold((a) => a.connection_id === connectionId && crash.killAt(a));
        const syncing = await api.call("POST", `${CONNECTIONS}/${connectionId}/syncs`);
        expect(syncing.status).toBe(202);
        held.push({ crash, connectionId, deadRunId: syncing.body.id as string, gate: await gate });
      }
      for (const run of held) expect(run.gate.announcement.run_id, run.crash.name).toBe(run.deadRunId);

      killedEngineCopy = nativeLibraryCopyOf(runtime.javaPid());
      if (life.killJavaFirst === true) {
        await runtime.killJava();
        // The point names no run (it is the client's, below any page): the first call that finds the store gone.
        const unreachable = control.hold((a) => a.point === "store-unreachable");
        for (const run of held) run.gate.go();
        await unreachable;
      }
      await runtime.killGroup();
      faultsOn = false;

      // --- Second life: the restart resumes every cut-short run; hold each before its first request.
      const firstFetches = held.map((run) => control.hold((a) => a.point === "before-fetch" && a.connection_id === run.connectionId));
      runtime = startRuntime();
      const begun = await Promise.all(firstFetches);
      held.forEach((run, index) => cutShort.set(run.crash.name, { connectionId: run.connectionId, deadRunId: run.deadRunId, begun: begun[index]! }));
    } catch (error) {
      console.error(`--- runtime output (tail), crash life ${part} ---\n${runtime.output().slice(-6000)}`);
      throw error;
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(started.map((each) => each.killGroup().catch(() => {})));
    table?.destroy();
    await control?.close();
    await Promise.all(sources.map((source) => source.close()));
    if (dataDir !== "") await rm(dataDir, { recursive: true, force: true });
  });

  describe("crash consistency: SIGKILL of the whole local runtime at each point of a page", () => {
    test("ENGINE_TMP_DIR: the killed DynamoDB Local's copy of its native library was in the data directory, not the system's temporary folder, and the restart removed it", () => {
      const engineTmpDir = join(dataDir, DYNAMODB_DATA_DIR, ENGINE_TMP_DIR);
      expect(killedEngineCopy, "the first life's engine maps its native library").toBeDefined();
      expect(dirname(killedEngineCopy!)).toBe(engineTmpDir);
      expect(existsSync(killedEngineCopy!), "left by the kill, removed by the restart").toBe(false);
      expect(dirname(nativeLibraryCopyOf(runtime.javaPid()) ?? "")).toBe(engineTmpDir);
    });

    for (const crash of life.cases) {
      test(`killed ${crash.name}: after a restart the resumed run ends with exactly the source's records, watermarks at the committed maximum, exact counts, the dead run failed, one run at a time`, async () => {
        const cut = cutShort.get(crash.name);
        expect(cut, "the life cut this case's run short").toBeDefined();
        const { connectionId, deadRunId, begun } = cut!;
        try {
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
          const api = await apiOf(await runtime.url, dataDir);
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
        }
      }, 180_000);
    }
  });
}
