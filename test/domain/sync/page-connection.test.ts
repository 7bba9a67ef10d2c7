import type { GetItemCommandInput } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { DynamoDbConnectionStore } from "../../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import { CONNECTION_ATTR, CONNECTION_PARTITION_KEY } from "../../../lambdas/adapters/dynamodb/connections/connection-keys";
import type { ConnectionStore } from "../../../lambdas/domain/core/ports/connection-store";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { LocalSyncEngine } from "../../../lambdas/runtimes/local/local-sync-engine";
import { makeSyncHandlers } from "../../../lambdas/handlers/sync/sync-handlers";
import { leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { testDynamoDbClient } from "../../support/dynamodb";
import { gate } from "../../support/gate";
import { LaggingConnectionStore } from "../../support/lagging-connection-store";
import { useScriptedCrmSource } from "../../support/scripted-crm-source";
import { entityRow, syncOnEngine, useSyncHarness } from "../../support/sync-harness";

/**
 * The page task's connection read (lambdas/domain/sync/page-connection.ts): eventually
 * consistent on the normal path, strongly consistent exactly where a stale
 * answer could do harm. DynamoDB Local serves every read from one copy, so a
 * lagging replica is LaggingConnectionStore (a double at our own port); the
 * read's consistency is what the real adapter sends (a client middleware).
 */

const OLD_TOKEN = "page-connection-old-token-1f0a";
const TOKEN = "page-connection-token-77c2";
const bearer = (token: string) => `Bearer ${token}`;
const harness = useSyncHarness();

const stamp = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
const leads = (count: number) => Array.from({ length: count }, (_, i) => leadRecord({ id: `l${i}`, updated_at: stamp(i) }));
// The source takes only TOKEN (OLD_TOKEN was rotated away: 401). Leads span two pages.
const source = useScriptedCrmSource(TOKEN, () => ({ pipelines: [pipelineRecord()], users: [userRecord()], contacts: [], leads: leads(150) }));

/** Runs a sync of `connection` on its own engine whose Task handlers use `connections`; the summary once it has settled. */
async function syncWith(connections: ConnectionStore, connection: StoredConnection): Promise<RunSummary> {
  const deps = { ...harness().deps, connections };
  const engine = new LocalSyncEngine({ handlers: makeSyncHandlers(deps), timeScale: 0.01 });
  return syncOnEngine(harness(), engine, connection, { ...harness().startDeps, connections });
}

/** A connection store on the harness's table whose client records the ConsistentRead of every GetItem of a connection item. */
function recordingConnectionStore() {
  const client = testDynamoDbClient();
  const reads: { sk: string | undefined; consistentRead: boolean | undefined }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as GetItemCommandInput;
      if (context.commandName === "GetItemCommand" && input.Key?.[CONNECTION_ATTR.pk]?.S === CONNECTION_PARTITION_KEY) {
        reads.push({ sk: input.Key[CONNECTION_ATTR.sk]?.S, consistentRead: input.ConsistentRead });
      }
      return next(args);
    },
    { step: "initialize", name: "recordConnectionReads" },
  );
  return { store: new DynamoDbConnectionStore({ client, tableName: harness().tableName }), reads, close: () => client.destroy() };
}

const sourceRequests = () =>
  source.server.requests.map((request) => ({ path: request.path, page: request.query["page"], authorization: request.headers.authorization }));

describe("the page task's connection read, at the page's start", () => {
  test("the page task reads the connection eventually consistent: ConsistentRead is not true on any page's read, only on the run's start", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const recording = recordingConnectionStore();
    const retriedBefore = harness().metrics.sum("PageRetries");
    try {
      const summary = await syncWith(recording.store, connection);
      expect(summary.status).toBe("succeeded");
      // A page task the state machine retried (a store slow enough to stale the limiter's slots, on a loaded machine) reads again.
      const retried = harness().metrics.sum("PageRetries") - retriedBefore;
      const reads = recording.reads.filter((read) => read.sk?.endsWith(`#${connection.id}`));
      const pages = source.server.requests.length;
      expect(pages).toBeGreaterThan(5);
      // BeginRun's read, strongly consistent (it starts the run from what the owner last wrote), and FinishRun's
      // (it judges the connection's freshness from what it holds now) ...
      expect(reads.filter((read) => read.consistentRead === true)).toHaveLength(2);
      // ... and one read per page task attempt, none of them strongly consistent.
      expect(reads.filter((read) => read.consistentRead !== true)).toHaveLength(pages + retried);
    } finally {
      recording.close();
    }
  });

  test("a 401 after a rotation whose read was stale retries the page with the new token: the run succeeds, every old-token request is followed by the same page with the new one", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const before = { ...connection, token_ciphertext: await harness().cipher.encrypt(OLD_TOKEN, { businessAccountId: connection.business_account_id, connectionId: connection.id }) };
    // Every eventually consistent read still sees the connection from before the rotation.
    const lagging = new LaggingConnectionStore({ client: harness().client, tableName: harness().tableName }, before);

    const summary = await syncWith(lagging, connection);

    expect(summary.status).toBe("succeeded");
    expect(lagging.staleReads).toBeGreaterThan(5);
    const requests = sourceRequests();
    const old = requests.flatMap((request, i) => (request.authorization === bearer(OLD_TOKEN) ? [i] : []));
    expect(old).toHaveLength(lagging.staleReads);
    for (const i of old) expect(requests[i + 1]).toEqual({ ...requests[i], authorization: bearer(TOKEN) });
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(150);
  });

  test("a stale \"missing\" does not stop the run: a page whose eventually consistent read finds no connection confirms it with a strong read and goes on", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    // A replica that has not seen the connection yet (e.g. one created just before its first sync).
    const lagging = new LaggingConnectionStore({ client: harness().client, tableName: harness().tableName }, null);

    const summary = await syncWith(lagging, connection);

    expect(summary.status).toBe("succeeded");
    expect(lagging.staleReads).toBeGreaterThan(5);
    expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded" });
    expect(await harness().listAll(connection.id, "leads")).toHaveLength(150);
  });

  test("a deleted connection still stops the run at its next page: that page's eventually consistent read finds nothing, a strong read confirms it, and no request is sent for it", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: TOKEN });
    const recording = recordingConnectionStore();
    const reached = gate();
    const release = gate();
    source.fault = async (request) => {
      if (request.path === "/leads" && request.query.get("page") === "2") {
        reached.open();
        await release.opened;
      }
      return undefined;
    };
    try {
      const run = syncWith(recording.store, connection);
      await reached.opened;
      await harness().connections.delete(connection.business_account_id, connection.id);
      const deletedAt = recording.reads.length;
      release.open();
      const summary = await run;

      // Leads page 2 was in flight and commits; the next page (tasks page 1) reads, confirms, and stops before its request.
      expect(entityRow(summary, "leads")).toMatchObject({ status: "succeeded", records: 150 });
      for (const entity of ["tasks", "calls", "events"]) {
        expect(entityRow(summary, entity), entity).toMatchObject({ status: "failed", error: expect.stringContaining("no longer exists") });
      }
      expect(sourceRequests().at(-1)).toMatchObject({ path: "/leads", page: "2" });
      const after = recording.reads.slice(deletedAt).filter((read) => read.sk?.endsWith(`#${connection.id}`));
      // The page's eventual read, its strong confirmation, then FinishRun's strong read for freshness.
      expect(after.map((read) => read.consistentRead === true)).toEqual([false, true, true]);
    } finally {
      release.open();
      recording.close();
    }
  });

  test("a real 401 (the token was not rotated) still stops every entity after one request", async () => {
    const connection = await harness().addConnection({ baseUrl: source.server.baseUrl, token: OLD_TOKEN });
    const summary = await syncWith(new DynamoDbConnectionStore({ client: harness().client, tableName: harness().tableName }), connection);

    expect(summary.status).toBe("failed");
    expect([...new Set(summary.entities.map((row) => `${row.status}: ${row.error}`))]).toEqual(["failed: the source refused the token (401): invalid token"]);
    expect(sourceRequests()).toEqual([{ path: "/pipelines", page: "1", authorization: bearer(OLD_TOKEN) }]);
  });
});
